"""What a corpus entry is: a stateful model, how to export it, and what must happen.

Each Case builds its module fresh, declares its methods as MultiMethodExporter.method
takes them (pteforge's MethodSpec: example args, dynamic shapes, and the value ranges
random calls draw integer inputs from), and says whether export must succeed on each
backend or be refused with an ExportError matching a pattern.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping

import torch

from pteforge.support.spec import MethodSpec, Tolerance


@dataclasses.dataclass(frozen=True)
class Case:
    """A corpus entry.

    Attributes:
      name: short identifier (the test id).
      pattern: the pattern users write that this entry stands for, in a few words.
      build: returns the module, in eval mode.
      methods: its entry points.
      shared: names for MultiMethodExporter.shared_state.
      backends: where export must succeed.
      refused: backend -> regex the ExportError must match (export must fail there).
      tolerance: conformance tolerance, if not the backend's default.
    """

    name: str
    pattern: str
    build: Callable[[], torch.nn.Module]
    methods: tuple[MethodSpec, ...]
    shared: tuple[str, ...] = ()
    backends: tuple[str, ...] = ("portable", "xnnpack")
    refused: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tolerance: Tolerance | None = None
