"""MultiMethodExporter: several entry points of one module, one .pte, one shared state.

    exporter = MultiMethodExporter(model, name="cache")
    exporter.shared_state("cache")
    exporter.method("set_cache", example_args=(torch.ones(4, 8),))
    exporter.method("get_cache", example_args=(torch.zeros(4, 8),))
    exporter.constant("max_seq_len", 128)
    program = exporter.export(backend="xnnpack")
    program.save("cache.pte")          # also writes cache.report.json

export() runs: torch.export per method -> state classification -> generated methods
(reset_state, get_state) -> edge dialect + delegation -> verification (b): no
delegate owns state -> memory planning + emission -> verification (a) state placement,
(c) conformance against eager PyTorch -> report. The stages are pteforge's
subpackages (capture, state, lower, emit, verify, report). Any failure raises
ExportError and produces nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Mapping, Sequence

import torch

from pteforge.capture.arguments import method_parameters
from pteforge.capture.capture import CapturedMethod, capture
from pteforge.capture.parallel_capture import capture_methods
from pteforge.capture.signature import method_signature
from pteforge.emit import emission, metadata, plan
from pteforge.lower import lowering
from pteforge.lower.speedups.shortcuts import export_shortcuts
from pteforge.program.pte_program import PteProgram
from pteforge.report import report
from pteforge.state import state as state_lib
from pteforge.support import failures
from pteforge.support.errors import ExportError
from pteforge.support.forked import export_jobs
from pteforge.support.instructions import instruction_counts
from pteforge.support.progress import StageTimer
from pteforge.support.quiet import held_back
from pteforge.support.spec import (
    BACKENDS,
    DEFAULT_TOLERANCE,
    GET_STATE_METHOD,
    RESET_STATE_METHOD,
    Backend,
    Call,
    MethodSpec,
    Tolerance,
    as_calls,
    generated_method_names,
)
from pteforge.verify import random_calls as random_calls_lib
from pteforge.verify.conformance import ConformanceResult, check_conformance
from pteforge.verify.delegated_state import check_no_delegate_owns_state
from pteforge.verify.replay import ReplayRecorder
from pteforge.verify.state_placement import check_state_placement

_log = logging.getLogger("pteforge")

# Value types a constant method can return (bytes become a uint8 tensor).
_CONSTANT_TYPES = (bool, int, float, str, bytes, torch.Tensor, list, tuple)


class MultiMethodExporter:
    """Collects the entry points, shared state and constants of one module to export.

    The module is not modified (its `forward` is borrowed during tracing and restored);
    conformance runs on a copy, so its state is left as it was.

    Args:
      module: the model, in eval mode.
      name: the program's name, used in the report (default: the module's class name).
    """

    def __init__(self, module: torch.nn.Module, name: str | None = None):
        if not isinstance(module, torch.nn.Module):
            raise ExportError(f"MultiMethodExporter needs a torch.nn.Module, got {type(module).__name__}")
        self.module = module
        self.name = name or type(module).__name__
        self._shared: list[str] = []
        self._methods: dict[str, MethodSpec] = {}
        self._constants: dict[str, Any] = {}
        self._calls: tuple[Call, ...] | None = None
        self._tolerance: dict[str, Tolerance] = {}  # by backend
        self._notes: list[str] = []
        self._state: list[state_lib.StateBuffer] | None = None  # known after export()

    def shared_state(self, *names: str) -> "MultiMethodExporter":
        """Declares state shared by all methods: buffer names, or submodule names
        meaning all of their buffers."""
        for name in names:
            if not isinstance(name, str):
                raise ExportError(f"shared_state() takes buffer or submodule names, got {name!r}")
            if name not in self._shared:
                self._shared.append(name)
        return self

    def method(
        self,
        name: str,
        example_args: Sequence[Any],
        dynamic_shapes: Any = None,
        input_ranges: Mapping[int, tuple[float, float]] | None = None,
    ) -> "MultiMethodExporter":
        """Adds an entry point: the module's method `name`, traced with `example_args`.

        Args:
          name: a method of the module.
          example_args: a tuple of example inputs, e.g. (torch.ones(4, 8),).
          dynamic_shapes: as for torch.export.export, e.g. ({0: Dim("batch", max=8)},).
          input_ranges: argument index -> (low, high), inclusive, for random_calls(),
            e.g. {0: (0, vocab_size - 1)} for token ids (default: the example's range
            for integer inputs, a standard normal for floating ones).
        """
        self._check_new_name(name, "method")
        function = getattr(self.module, name, None)
        if not callable(function):
            methods = sorted(
                attr for attr in dir(type(self.module))
                if not attr.startswith("_") and callable(getattr(type(self.module), attr, None))
                and attr not in dir(torch.nn.Module)
            )
            raise ExportError(
                f"the module ({type(self.module).__name__}) has no method '{name}'. "
                f"Its own methods are: {', '.join(methods) or '(none)'}.",
                method=name,
            )
        if isinstance(example_args, torch.Tensor) or not isinstance(example_args, (tuple, list)):
            raise ExportError(
                "example_args must be a tuple of inputs, e.g. (torch.ones(4, 8),), "
                f"not {type(example_args).__name__}",
                method=name,
            )
        self._methods[name] = MethodSpec(
            name, tuple(example_args), dynamic_shapes, _checked_ranges(name, input_ranges, len(example_args)))
        return self

    def constant(self, name: str, value: Any) -> "MultiMethodExporter":
        """Adds a constant method returning `value` (int, float, bool, str, bytes, a
        tensor, or a list of numbers). Bytes are stored as a uint8 tensor."""
        self._check_new_name(name, "constant")
        if not isinstance(value, _CONSTANT_TYPES):
            raise ExportError(
                f"constant '{name}': unsupported type {type(value).__name__}; use int, float, "
                "bool, str, bytes, a tensor or a list of numbers"
            )
        if isinstance(value, bytes):
            value = torch.frombuffer(bytearray(value), dtype=torch.uint8).clone()
        elif isinstance(value, tuple):
            value = list(value)
        self._constants[name] = value
        return self

    def note(self, text: str) -> "MultiMethodExporter":
        """Adds a line to the report's notes (what the export changed or left out that
        the program's user should know)."""
        self._notes.append(str(text))
        return self

    def call_sequence(self, calls: Sequence[Call | tuple[str, Sequence[Any]]]) -> "MultiMethodExporter":
        """Sets the calls conformance runs (default: every method in registration order
        with its example args, twice over). Each call is (method, args) or a Call."""
        self._calls = as_calls(calls)
        return self

    def conformance_tolerance(self, tolerance: Tolerance | Mapping[str, Tolerance]) -> "MultiMethodExporter":
        """Sets the tolerance conformance uses when export() is not given one (default:
        the backend's): one for every backend, or a mapping backend -> Tolerance (the
        backends it leaves out keep their default). For a model whose eager and runtime
        arithmetic legitimately differ more than float rounding, e.g. dynamically
        quantized activations, where a rounding flip moves a value by a quantization
        step, or logits whose scale varies (Tolerance.scaled). The report records it."""
        tolerances = tolerance if isinstance(tolerance, Mapping) else dict.fromkeys(BACKENDS, tolerance)
        for backend, value in tolerances.items():
            if backend not in BACKENDS:
                raise ExportError(f"conformance_tolerance: unknown backend '{backend}'; choose among {', '.join(BACKENDS)}")
            if not isinstance(value, Tolerance):
                raise ExportError(f"conformance_tolerance needs a pteforge.Tolerance, got {type(value).__name__}")
        self._tolerance = dict(tolerances)
        return self

    def random_calls(self, count: int, seed: int) -> tuple[Call, ...]:
        """`count` calls drawn at random among the registered methods, with inputs drawn
        within their declared shapes, dynamic ranges and input_ranges (reproducible for
        a seed; pteforge.verify.random_calls). For call_sequence() or check()."""
        return random_calls_lib.random_calls(
            list(self._methods.values()), count, seed,
            parameters=lambda name: method_parameters(self._function(name)))

    def check(
        self, program: PteProgram, calls: Sequence[Call | tuple[str, Sequence[Any]]],
        tolerance: Tolerance | None = None, record_replay: bool = False,
    ) -> ConformanceResult:
        """Runs more calls through conformance against a program export() produced:
        eager PyTorch and the runtime from the initial state, compared after every call.

        Args:
          program: what this exporter's export() returned.
          calls: e.g. random_calls(50, seed=1).
          tolerance: default: the one the export used.
          record_replay: also return the replay record (ConformanceResult.replay), to
            replay the same calls through the C++ Session (pte_replay).

        Raises:
          ExportError: at the first mismatch, naming the call and the value.
        """
        if self._state is None:
            raise ExportError("check() needs the program of an export() by this exporter; call export() first")
        calls = as_calls(calls)
        self._check_calls(calls)
        if tolerance is None:
            tolerance = Tolerance(**program.report["conformance"]["tolerance"])
        recorder = ReplayRecorder(self.name, tolerance) if record_replay else None
        with held_back():
            result = check_conformance(self.module, program.data, self._state, calls, tolerance, recorder)
        return dataclasses.replace(result, replay=recorder.text()) if recorder else result

    def _function(self, name: str):
        """The unbound function behind method `name`."""
        function = getattr(type(self.module), name, None)
        if function is None:  # a function stored on the instance
            function = getattr(self.module, name).__func__
        return function

    def _check_new_name(self, name: str, kind: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ExportError(f"{kind} name {name!r} is not a valid identifier")
        if name == metadata.METADATA_METHOD:
            raise ExportError(f"{kind} name '{name}' is reserved for the metadata pteforge stores; rename yours")
        if name in self._methods or name in self._constants:
            raise ExportError(f"{kind} name '{name}' is already registered")

    def _default_calls(self) -> tuple[Call, ...]:
        once = [Call(spec.name, spec.example_args) for spec in self._methods.values()]
        return tuple(once + once)

    def _check_calls(self, calls: Sequence[Call]) -> None:
        for call in calls:
            if call.method not in self._methods:
                raise ExportError(
                    f"the call sequence calls '{call.method}', which is not a registered method "
                    f"({', '.join(self._methods)})"
                )

    def export(
        self, backend: Backend = "portable", tolerance: Tolerance | None = None, record_replay: bool = False
    ) -> PteProgram:
        """Exports, lowers, plans, verifies and reports. See the module docstring.

        Args:
          backend: "portable" (ExecuTorch's CPU kernels) or "xnnpack" (delegate what
            XNNPACK takes; the rest runs on the portable kernels).
          tolerance: conformance tolerance (default: conformance_tolerance(), else
            the backend's).
          record_replay: also keep the conformance calls and eager PyTorch's results
            as a replay record (PteProgram.replay; pteforge.verify.replay), to check the
            program again where it runs.

        What torch and ExecuTorch print on the way is held back (pteforge.support.quiet):
        pteforge.set_verbose(True) shows it.

        Raises:
          ExportError: with the method and buffer concerned, and the fix.
        """
        with held_back(), export_shortcuts():
            return self._export(backend, tolerance, record_replay)

    def _export(self, backend: Backend, tolerance: Tolerance | None, record_replay: bool) -> PteProgram:
        if backend not in BACKENDS:
            raise ExportError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")
        if not self._methods:
            raise ExportError("no methods registered; add entry points with exporter.method(...)")
        if self.module.training:
            raise ExportError(
                "the module is in training mode; call module.eval() before exporting "
                "(dropout and batch norm behave differently in training)"
            )
        calls = self._calls if self._calls is not None else self._default_calls()
        self._check_calls(calls)
        tolerance = tolerance or self._tolerance.get(backend) or DEFAULT_TOLERANCE[backend]
        timer = StageTimer()

        def capture_one(name: str) -> CapturedMethod:
            spec = self._methods[name]
            return capture(self.module, name, self._function(name), spec.example_args, spec.dynamic_shapes)

        captured = capture_methods(self.module, list(self._methods), capture_one, export_jobs(), timer)

        try:
            shared = state_lib.expand_declarations(self.module, self._shared)
            state = state_lib.classify(self.module, shared, list(captured.values()))
        except Exception as error:
            raise failures.explain("classifying the state", error) from error
        for buffer in state:
            if buffer.shared and not buffer.methods:
                _log.warning("shared state '%s' is not used by any method", buffer.name)

        generated: dict[str, CapturedMethod] = {}
        generated_names = generated_method_names({*self._methods, *self._constants})
        if state:
            reset_state, get_state = generated_names[RESET_STATE_METHOD], generated_names[GET_STATE_METHOD]
            with timer.stage(f"generate {reset_state} and {get_state}"):
                generated[reset_state] = capture(self.module, reset_state, state_lib.make_reset_state(state), ())
                generated[get_state] = capture(self.module, get_state, state_lib.make_get_state(state), ())

        programs = {name: c.program for name, c in {**captured, **generated}.items()}
        constants = dict(self._constants)
        signatures = {name: method_signature(c.program, c.written_args) for name, c in captured.items()}
        constants[metadata.METADATA_METHOD] = metadata.encode(signatures, state, list(self._constants), generated_names)
        state_names = [buffer.name for buffer in state]
        with timer.stage(f"to_edge and lowering ({backend})"):
            try:
                edge = lowering.to_edge_and_lower(programs, constants, backend, state_names, export_jobs())
            except Exception as error:
                raise failures.blame_method(
                    f"lowering to ExecuTorch ({backend})", error, programs,
                    lambda method: lowering.to_edge_and_lower({method: programs[method]}, {}, backend, state_names),
                ) from error
            # Before planning: a delegate that took state fails the export early.
            check_no_delegate_owns_state(edge, programs.keys(), state_names)
        with timer.stage("memory planning and emission"):
            try:
                emitted = emission.plan_and_emit(edge)
                data = emitted.buffer
            except Exception as error:
                raise failures.blame_method(
                    "memory planning and emission", error, programs,
                    lambda method: emission.plan_and_emit(
                        lowering.to_edge_and_lower({method: programs[method]}, {}, backend, state_names)),
                ) from error
        with timer.stage("verification"):
            try:
                plans = plan.read_plans(emitted.executorch_program)
                placements = check_state_placement(plans, state, list(generated))
            except Exception as error:
                raise failures.explain("reading the memory plan", error) from error
            recorder = ReplayRecorder(self.name, tolerance) if record_replay else None
            conformance = check_conformance(self.module, data, state, calls, tolerance, recorder)
        delegated = {
            method: sum(1 for _, child in edge.exported_program(method).graph_module.named_children()
                        if hasattr(child, "original_module"))
            for method in captured
        }
        result = report.build(
            name=self.name,
            backend=backend,
            signatures=signatures,
            generated_methods=list(generated),
            plans=plans,
            state=state,
            placements=placements,
            constants=self._constants,
            pte_bytes=len(data),
            constant_data_bytes=plan.constant_data_bytes(emitted.executorch_program, data),
            delegated=delegated,
            instructions=instruction_counts(emitted.executorch_program),
            conformance=conformance,
            notes=self._notes,
        )
        replay = recorder.text() if recorder is not None else None
        self._state = state
        return PteProgram(data=data, report=result, timings=timer.timings, replay=replay)


def _checked_ranges(method: str, ranges: Any, arguments: int) -> Mapping[int, tuple[float, float]] | None:
    if ranges is None:
        return None
    if not isinstance(ranges, Mapping):
        raise ExportError(f"input_ranges must map an argument index to (low, high), got {type(ranges).__name__}",
                          method=method)
    checked = {}
    for index, bounds in ranges.items():
        if not isinstance(index, int) or not 0 <= index < arguments:
            raise ExportError(f"input_ranges: {index!r} is not an argument index (the method takes {arguments})",
                              method=method)
        if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2 and bounds[0] <= bounds[1]):
            raise ExportError(f"input_ranges[{index}] must be (low, high) with low <= high, got {bounds!r}",
                              method=method)
        checked[index] = (bounds[0], bounds[1])
    return checked
