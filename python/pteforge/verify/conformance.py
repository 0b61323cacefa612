"""Verification (c): the program behaves like the eager module across a call sequence.

The same calls run on a copy of the eager module and on the ExecuTorch runtime loaded
from the produced bytes (every method loaded first, then reset_state, as pteforge's
loaders do). After every call, every output, every tensor argument (those the method
writes in place, and that the others are unchanged) and every state buffer must match
within the tolerance. The first mismatch fails the export, naming the call and the
value.

Arguments and results may be tuples, lists and dicts of tensors: eager PyTorch gets the
arguments as given, the runtime their leaves (the program's flat inputs), and values are
compared leaf by leaf, named by their paths (`xs[1]`, `['h']`).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Sequence

import torch
import torch.utils._pytree as pytree

from pteforge.capture.signature import dumps_spec
from pteforge.run.runtime import LoadedProgram
from pteforge.state.state import StateBuffer, state_values
from pteforge.support import failures
from pteforge.support.errors import ExportError
from pteforge.support.spec import Call, Tolerance, clone_args
from pteforge.verify.replay import ReplayRecorder


@dataclasses.dataclass(frozen=True)
class ConformanceResult:
    """What the conformance check ran and how close the runtime came.

    Attributes:
      sequence: the methods called, in order.
      values_compared: outputs and state buffers compared in all.
      max_abs_error: the largest absolute difference seen.
      tolerance: the tolerance applied.
      replay: the replay record of these calls, when asked for (MultiMethodExporter.check).
    """

    sequence: tuple[str, ...]
    values_compared: int
    max_abs_error: float
    tolerance: Tolerance
    replay: str | None = None


class _Comparer:
    def __init__(self, tolerance: Tolerance):
        self.tolerance = tolerance
        self.compared = 0
        self.max_abs_error = 0.0

    def check(self, want: Any, got: Any, what: str, method: str | None) -> None:
        self.compared += 1
        if isinstance(want, torch.Tensor):
            if not isinstance(got, torch.Tensor):
                raise ExportError(f"{what}: eager gives a tensor, the runtime {type(got).__name__}", method=method)
            if want.shape != got.shape or want.dtype != got.dtype:
                raise ExportError(
                    f"{what}: eager gives {want.dtype} {list(want.shape)}, the runtime "
                    f"{got.dtype} {list(got.shape)}",
                    method=method,
                )
            if want.numel() == 0:
                return
            if want.is_floating_point():
                error = (want.double() - got.double()).abs()
                worst = float(error.max())
                self.max_abs_error = max(self.max_abs_error, worst)
                atol = self.tolerance.atol_for(want)
                ok = torch.allclose(got, want, atol=atol, rtol=self.tolerance.rtol, equal_nan=True)
            else:
                worst = float((want.double() - got.double()).abs().max()) if want.dtype != torch.bool else float((want != got).sum())
                ok = torch.equal(want, got)
            if not ok:
                scaled = self.tolerance.scaled and want.is_floating_point()
                scale = f"; its scale {self.tolerance.scale(want):.3g}" if scaled else ""
                raise ExportError(
                    f"{what} differs from eager PyTorch: max abs error {worst:.3g} "
                    f"({self.tolerance.describe()}{scale})",
                    method=method,
                )
        elif isinstance(want, (bool, int, float)):
            if isinstance(got, torch.Tensor) and got.numel() == 1:
                got = got.item()
            if not isinstance(got, (bool, int, float)) or abs(float(want) - float(got)) > self.tolerance.atol_for(want) + self.tolerance.rtol * abs(float(want)):
                raise ExportError(f"{what}: eager gives {want!r}, the runtime {got!r}", method=method)
        elif want is None:
            return
        else:
            raise ExportError(f"{what}: cannot compare an output of type {type(want).__name__}", method=method)


def check_conformance(
    module: torch.nn.Module,
    program: bytes,
    state: Sequence[StateBuffer],
    calls: Sequence[Call],
    tolerance: Tolerance,
    recorder: ReplayRecorder | None = None,
) -> ConformanceResult:
    """Runs `calls` on eager and on the runtime; raises ExportError at the first mismatch.

    With a recorder, also writes down every call and what eager PyTorch gave (the
    replay record, pteforge.verify.replay)."""
    eager = copy.deepcopy(module)
    try:
        runtime = LoadedProgram(program)
    except Exception as error:
        raise failures.explain("loading the program in ExecuTorch's runtime", error) from error
    comparer = _Comparer(tolerance)
    initial = state_values(eager, state)
    _check_state(comparer, initial, runtime, "after loading (initial state)")
    if recorder is not None:
        recorder.state(initial)
    for index, call in enumerate(calls, start=1):
        label = f"call {index} ({call.method})"
        args = clone_args(call.args)
        try:
            with torch.no_grad():
                want = getattr(eager, call.method)(*args)
        except Exception as error:
            raise ExportError(
                f"{label}: eager PyTorch fails with these inputs ({type(error).__name__}: {error}). "
                "Give calls (call_sequence, check) or input_ranges (method) the method accepts.",
                method=call.method,
            ) from error
        want_leaves = pytree.tree_leaves(want)
        try:
            flat_args = runtime.flatten(call.method, *args)  # as eager left them
            flat_before = runtime.flatten(call.method, *call.args)
        except TypeError as error:
            raise ExportError(f"{label}: {error}", method=call.method) from error
        if recorder is not None:
            recorder.call(call, flat_before)
            recorder.outputs(call.method, want_leaves)
        runtime_args = clone_args(call.args)
        try:
            got = runtime.run(call.method, *runtime_args)
        except Exception as error:
            raise failures.explain(f"{label} on ExecuTorch's runtime", error, method=call.method) from error
        flat_runtime_args = runtime.flatten(call.method, *runtime_args)  # as the runtime left them
        if len(got) != len(want_leaves):
            raise ExportError(
                f"{label}: eager returns {len(want_leaves)} values, the runtime {len(got)}",
                method=call.method,
            )
        for position, (w, g) in enumerate(zip(want_leaves, got)):
            comparer.check(w, g, f"{label}: output {_named(runtime, call.method, 'output', position)}", call.method)
        stored = runtime.metadata.out_specs.get(call.method) if runtime.metadata else None
        given = dumps_spec(pytree.tree_structure(want))
        if stored is not None and given is not None and given != stored:
            raise ExportError(
                f"{label}: eager returns a {type(want).__name__} structured differently from what the "
                "traced method returns, so pteforge.load(...).call would not give eager's structure",
                method=call.method,
            )
        # The arguments the method writes in place, as eager PyTorch left them (flat inputs).
        written = runtime.written_args(call.method)
        for position in written:
            comparer.check(flat_args[position], flat_runtime_args[position],
                           f"{label}: argument {_named(runtime, call.method, 'input', position)} (written by the "
                           "method)", call.method)
        for position, (before, after) in enumerate(zip(flat_before, flat_args)):
            if position not in written and isinstance(before, torch.Tensor) and not _unchanged(before, after):
                raise ExportError(
                    f"{label}: eager PyTorch changes argument {_named(runtime, call.method, 'input', position)} "
                    "in place, but the traced method does not write it (a write torch.export did not see, e.g. "
                    "through .data or numpy); write it with tensor operations, or return the new value as an "
                    "output",
                    method=call.method,
                )
        if recorder is not None:
            recorder.written(call.method, [(position, flat_args[position]) for position in written])
        after = state_values(eager, state)
        _check_state(comparer, after, runtime, f"after {label}")
        if recorder is not None:
            recorder.state(after)
    return ConformanceResult(
        sequence=tuple(call.method for call in calls),
        values_compared=comparer.compared,
        max_abs_error=comparer.max_abs_error,
        tolerance=tolerance,
    )


def _named(runtime: LoadedProgram, method: str, kind: str, index: int) -> str:
    """`0`, or `1 (xs[1])` where the flat value has a name (a plain argument's name is
    given for inputs too: `0 (x)`)."""
    name = runtime.metadata.name(method, kind, index) if runtime.metadata else ""
    return f"{index} ({name})" if name else str(index)


def _unchanged(before: torch.Tensor, after: torch.Tensor) -> bool:
    """Whether `after` holds the same values as `before` (NaN where NaN was)."""
    same = before == after
    if before.is_floating_point() or before.is_complex():
        same |= before.isnan() & after.isnan()
    return bool(same.all())


def _check_state(comparer: _Comparer, want: dict[str, torch.Tensor], runtime: LoadedProgram, when: str) -> None:
    try:
        got = runtime.state()
    except Exception as error:
        raise failures.explain(f"reading the state {when} (get_state)", error) from error
    for name, value in want.items():
        if name not in got:
            raise ExportError(f"{when}: the runtime program has no state buffer of this name", buffer=name)
        try:
            comparer.check(value, got[name], f"{when}: state", None)
        except ExportError as error:
            raise ExportError(str(error), buffer=name) from None
