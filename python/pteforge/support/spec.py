"""Plain data describing what to export: methods, tolerances and the backend."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Collection, Literal, Mapping, Sequence

import torch
import torch.utils._pytree as pytree

# portable: ExecuTorch's CPU kernels; xnnpack: what XNNPACK takes delegated to it;
# cortex_m: linear layers on pteforge's CMSIS-NN operators (pteforge.cortex_m), the
# rest on the portable kernels.
Backend = Literal["portable", "xnnpack", "cortex_m"]
BACKENDS: tuple[Backend, ...] = ("portable", "xnnpack", "cortex_m")

# Methods pteforge adds to every program with state, by role. A program whose own
# methods take these names (ExecuTorch's test model ModuleSharedState has a get_state)
# gets its generated ones under other names; the metadata says which (pteforge.emit.metadata).
RESET_STATE_METHOD = "reset_state"
GET_STATE_METHOD = "get_state"
GENERATED_METHODS = (RESET_STATE_METHOD, GET_STATE_METHOD)


def generated_method_names(taken: Collection[str]) -> dict[str, str]:
    """Role -> the generated method's name in a program whose other methods are `taken`:
    the role's own name if free, else "pteforge_<role>" (with a number if that is taken too)."""
    names = {}
    for role in GENERATED_METHODS:
        name, number = role, 1
        while name in taken:
            name = f"pteforge_{role}" + (f"_{number}" if number > 1 else "")
            number += 1
        names[role] = name
    return names


@dataclasses.dataclass(frozen=True)
class MethodSpec:
    """One entry point of the program.

    Attributes:
      name: the module's method to export; also the method's name in the .pte.
      example_args: positional example inputs (tensors) used to trace the method and,
        by default, to check the exported program against eager PyTorch.
      dynamic_shapes: as for torch.export.export: per argument, a dict from dimension
        index to a torch.export.Dim (or None for a static argument).
      input_ranges: argument index -> (low, high), inclusive: the values random call
        sequences draw for that input (pteforge.verify.random_calls), e.g. the valid token ids
        or positions.
    """

    name: str
    example_args: tuple[Any, ...]
    dynamic_shapes: Any = None
    input_ranges: Mapping[int, tuple[float, float]] | None = None


@dataclasses.dataclass(frozen=True)
class Call:
    """One call in a conformance sequence: a method name and its positional arguments."""

    method: str
    args: tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How close runtime results must be to eager ones (as in torch.allclose).

    Attributes:
      atol: absolute tolerance.
      rtol: relative tolerance.
      scaled: atol counts in units of each value's scale, its largest magnitude in
        eager PyTorch (at least 1): |runtime - eager| <= atol * scale + rtol * |eager|.
        For values whose size varies from model to model, like a language model's
        logits: float32 rounding grows with the numbers summed, so logits in the tens
        (scaled embeddings, soft-capping) differ by more than logits near 1.
    """

    atol: float = 1e-5
    rtol: float = 1e-5
    scaled: bool = False

    def scale(self, want: "torch.Tensor | float") -> float:
        """What atol is multiplied by for eager's `want`: 1 unless scaled; scaled, its
        largest magnitude, at least 1 (1 when it holds a NaN or an infinity)."""
        if not self.scaled:
            return 1.0
        if isinstance(want, torch.Tensor):
            largest = float(want.detach().abs().max()) if want.numel() else 0.0
        else:
            largest = abs(float(want))
        return max(1.0, largest) if math.isfinite(largest) else 1.0

    def atol_for(self, want: "torch.Tensor | float") -> float:
        """The absolute tolerance for comparing against eager's `want`."""
        return self.atol * self.scale(want)

    def describe(self) -> str:
        """As error messages and reports say it: `atol=0.0001, rtol=0.0001` (scaled: `atol=0.0001 x scale, ...`)."""
        return f"atol={self.atol}{' x scale' if self.scaled else ''}, rtol={self.rtol}"


# XNNPACK and CMSIS-NN reorder float reductions (and may use FMA), so they need a
# looser default.
DEFAULT_TOLERANCE: dict[Backend, Tolerance] = {
    "portable": Tolerance(atol=1e-5, rtol=1e-5),
    "xnnpack": Tolerance(atol=1e-4, rtol=1e-4),
    "cortex_m": Tolerance(atol=1e-4, rtol=1e-4),
}

# The defaults relative to the values' scale (Tolerance.scaled), for outputs whose scale
# varies from model to model (language models' logits, cached keys and values): models
# whose logits are large (scaled embeddings, soft-capping) are as exact as others, but
# float32 rounding grows with the size of the numbers.
SCALED_TOLERANCE: dict[Backend, Tolerance] = {
    backend: dataclasses.replace(tolerance, scaled=True) for backend, tolerance in DEFAULT_TOLERANCE.items()}

# Programs with int8 activations quantized at run time: where eager PyTorch and XNNPACK
# round a value to different sides of a step, results move by about that step (seen:
# 0.05 on the layer-normed encoder output of the full OPUS-MT model), and steps grow
# with the values' scale (seen: 0.73 on Whisper tiny.en's logits, whose largest are 18 to 32
# in magnitude), so the bound is relative to the scale as SCALED_TOLERANCE's is. It catches
# a program that reads the wrong state or method (errors of the order of the scale);
# how close int8 comes to float32 is measured in tokens (docs/seq2seq.md, docs/llm.md).
DYNAMIC_INT8_TOLERANCE = Tolerance(atol=0.2, rtol=0.05, scaled=True)


def as_calls(sequence: Sequence[Call | tuple[str, Sequence[Any]]]) -> tuple[Call, ...]:
    """Normalizes a call sequence given as Call objects or (method, args) pairs."""
    calls = []
    for item in sequence:
        if isinstance(item, Call):
            calls.append(item)
        else:
            method, args = item
            calls.append(Call(method, tuple(args)))
    return tuple(calls)


def clone_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Copies `args` with every tensor cloned, also inside tuples, lists and dicts (a
    copy of the containers too), so a call cannot change the caller's values."""
    return tuple(pytree.tree_map(lambda a: a.clone() if isinstance(a, torch.Tensor) else a, a) for a in args)
