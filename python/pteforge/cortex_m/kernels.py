"""pteforge's C++ kernels in ExecuTorch's Python runtime.

A program with pteforge's operators (ops.py) runs in ExecuTorch's Python runtime -- the
exporter's conformance check, pteforge.load -- only once their kernels are registered
there. The reference kernels are built as a shared library over the wheel's
libexecutorch.so (//cc/kernels:libpteforge_kernels.so), the library whose kernel
registry the Python runtime uses, and loaded into the process: its static initializer
registers them.

Where the library is found: $PTEFORGE_KERNELS_LIBRARY, else Bazel's runfiles (every
target depending on //python/pteforge has it).
"""

from __future__ import annotations

import ctypes
import functools
import os

from pteforge.support.errors import ExportError

LIBRARY_ENV = "PTEFORGE_KERNELS_LIBRARY"
_RUNFILE = "pteforge/cc/kernels/libpteforge_kernels.so"
# How a program names pteforge's operators (flatbuffer strings).
_MARKER = b"pteforge::"


def needs_kernels(program) -> bool:
    """Whether a .pte's bytes (bytes or an mmap) name any pteforge operator."""
    return program.find(_MARKER) != -1


def _library_path() -> str | None:
    given = os.environ.get(LIBRARY_ENV)
    if given:
        return given
    try:
        from runfiles import runfiles
    except ImportError:  # installed from the wheel, outside Bazel
        return None
    found = runfiles.Create()
    path = found.Rlocation(_RUNFILE) if found else None
    return path if path and os.path.exists(path) else None


@functools.cache
def load() -> str:
    """Registers pteforge's kernels in ExecuTorch's Python runtime (once per process);
    returns the library's path.

    Raises:
      ExportError: the library cannot be found or loaded.
    """
    path = _library_path()
    if path is None or not os.path.exists(path):
        raise ExportError(
            "this program uses pteforge's operators (backend='cortex_m', or an encoder-decoder's cached "
            "attention), whose kernels ExecuTorch's Python runtime does not have: build them with "
            "`./bazelw build //cc/kernels:libpteforge_kernels.so` "
            f"and set {LIBRARY_ENV} to bazel-bin/cc/kernels/libpteforge_kernels.so"
            + (f" (it is {os.environ[LIBRARY_ENV]!r}, which does not exist)" if os.environ.get(LIBRARY_ENV) else ""))
    # The Python runtime first: its libexecutorch.so is then the one the library binds to.
    from executorch.extension.pybindings import portable_lib

    try:
        ctypes.CDLL(path)
    except OSError as error:
        raise ExportError(f"cannot load pteforge's kernels from {path}: {error}") from error
    from pteforge.cortex_m.ops import PROGRAM_OPERATORS

    # One generated registration holds every kernel of the library (seq2seq's cached
    # attention included): these being there proves it is the right library.
    missing = sorted(set(PROGRAM_OPERATORS) - set(portable_lib._get_operator_names()))
    if missing:
        raise ExportError(f"{path} was loaded but did not register {', '.join(missing)} with ExecuTorch's "
                          "runtime: it must be built against the executorch wheel this Python uses")
    return path
