"""Package names that import their modules on first use (PEP 562), so that importing a
package (pteforge, pteforge.llm, pteforge.seq2seq) does not import torch or transformers.

    __all__, __getattr__ = lazy_names(__name__, {"MultiMethodExporter": "pteforge.program.exporter"})
"""

from __future__ import annotations

import importlib
from typing import Callable


def lazy_names(package: str, homes: dict[str, str]) -> tuple[list[str], Callable[[str], object]]:
    """The package's __all__ and its module __getattr__, for names living in `homes`
    (name -> module)."""

    def __getattr__(name: str) -> object:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(homes[name]), name)

    return sorted(homes), __getattr__
