"""A .pte file's program (executorch.exir.schema.Program), read without importing the rest
of executorch.exir.

The build's actions that only read a program (the kernel selection, select_kernels.py;
an image's memory sizing, gen_embedded.py) spent most of their time importing: ExecuTorch's
serializer lives in executorch.exir._serialize, and importing it first runs
executorch/exir/__init__.py, which imports exir's capture, passes and dialects (and with
them torch._dynamo and torch._inductor): about 5 s of a 7 s action, dozens of actions in a
cold build. The serializer needs none of that. read_program imports it with exir's
__init__ skipped (an empty stand-in package for the import, removed after), about 2 s;
if that fails (another ExecuTorch layout) it imports it the usual way.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from typing import Any

_EXIR = "executorch.exir"
_SERIALIZER = "executorch.exir._serialize._program"


class ProgramFileError(Exception):
    """A file that is not a readable ExecuTorch program; the message says which and why."""


def read_program(path: str) -> Any:
    """The program in the .pte file at `path` (an exir.schema.Program)."""
    deserialize = _serializer().deserialize_pte_binary
    with open(path, "rb") as f:
        data = f.read()
    try:
        program = deserialize(data)
    except Exception as error:  # any parse failure means: not a program we can read
        raise ProgramFileError(f"{path} is not a readable ExecuTorch program "
                               f"({type(error).__name__}: {error})") from error
    return getattr(program, "program", program)


def _serializer() -> types.ModuleType:
    if _EXIR in sys.modules or _SERIALIZER in sys.modules:
        return importlib.import_module(_SERIALIZER)
    spec = importlib.util.find_spec("executorch")
    folders = list(spec.submodule_search_locations or []) if spec else []
    stand_in = types.ModuleType(_EXIR)
    stand_in.__path__ = [os.path.join(folder, "exir") for folder in folders]
    sys.modules[_EXIR] = stand_in
    try:
        return importlib.import_module(_SERIALIZER)
    except ImportError:
        for name in [name for name in sys.modules if name.startswith(_EXIR + ".")]:
            del sys.modules[name]
        del sys.modules[_EXIR]
        return importlib.import_module(_SERIALIZER)
    finally:
        # A later `import executorch.exir` runs the real __init__ (the serializer's
        # modules stay loaded and are reused).
        if sys.modules.get(_EXIR) is stand_in:
            del sys.modules[_EXIR]
