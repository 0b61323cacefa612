"""Replacing a method of torch or ExecuTorch for the length of a block, only when its
source is the one a shortcut was written against (the shortcuts in shortcuts.py)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
from typing import Any, Iterator


@functools.lru_cache(maxsize=None)
def source_digest(function) -> str | None:
    """The first 16 hex digits of sha256 over `function`'s source (None if unavailable).
    Once per function or class: a class's source is found by parsing its whole module, and
    the shortcuts check the same ones at every export."""
    try:
        return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        return None


@contextlib.contextmanager
def replaced_if_known(owner: Any, name: str, replacement: Any, known_digest: str) -> Iterator[bool]:
    """Within the block, `owner.name` is `replacement` if the one `owner` defines has the
    source `known_digest` names; yields whether it was replaced. Another version, or the
    replacement itself (a block nested in one), is left alone."""
    original = vars(owner).get(name)
    if original is None or source_digest(original) != known_digest:
        yield False
        return
    setattr(owner, name, replacement)
    try:
        yield True
    finally:
        setattr(owner, name, original)
