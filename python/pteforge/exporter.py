"""MultiMethodExporter: several entry points of one module, one .pte, one shared state.

    exporter = MultiMethodExporter(model, name="cache")
    exporter.shared_state("cache")
    exporter.method("set_cache", example_args=(torch.ones(4, 8),))
    exporter.method("get_cache", example_args=(torch.zeros(4, 8),))
    exporter.constant("max_seq_len", 128)
    program = exporter.export(backend="xnnpack")
    program.save("cache.pte")          # also writes cache.report.json

export() runs: torch.export per method -> state classification -> generated methods
(reset_state, get_state) -> edge dialect + delegation -> memory planning + emission
-> verification (state placement; no delegate owns state; conformance against eager
PyTorch) -> report. Any failure raises ExportError and produces nothing.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import torch

from pteforge import lowering, metadata, plan, report, state as state_lib
from pteforge.capture import CapturedMethod, capture
from pteforge.conformance import check_conformance
from pteforge.errors import ExportError
from pteforge.program import PteProgram
from pteforge.progress import StageTimer
from pteforge.replay import ReplayRecorder
from pteforge.signature import method_signature
from pteforge.verify import check_state_placement
from pteforge.spec import (
    BACKENDS,
    DEFAULT_TOLERANCE,
    GENERATED_METHODS,
    GET_STATE_METHOD,
    RESET_STATE_METHOD,
    Backend,
    Call,
    MethodSpec,
    Tolerance,
    as_calls,
)

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
        self._tolerance: Tolerance | None = None

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
        self, name: str, example_args: Sequence[Any], dynamic_shapes: Any = None
    ) -> "MultiMethodExporter":
        """Adds an entry point: the module's method `name`, traced with `example_args`.

        Args:
          name: a method of the module.
          example_args: a tuple of example inputs, e.g. (torch.ones(4, 8),).
          dynamic_shapes: as for torch.export.export, e.g. ({0: Dim("batch", max=8)},).
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
        self._methods[name] = MethodSpec(name, tuple(example_args), dynamic_shapes)
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

    def call_sequence(self, calls: Sequence[Call | tuple[str, Sequence[Any]]]) -> "MultiMethodExporter":
        """Sets the calls conformance runs (default: every method in registration order
        with its example args, twice over). Each call is (method, args) or a Call."""
        self._calls = as_calls(calls)
        return self

    def conformance_tolerance(self, tolerance: Tolerance) -> "MultiMethodExporter":
        """Sets the tolerance conformance uses when export() is not given one (default:
        the backend's). For a model whose eager and runtime arithmetic legitimately
        differ more than float rounding, e.g. dynamically quantized activations, where
        a rounding flip moves a value by a quantization step. The report records it."""
        if not isinstance(tolerance, Tolerance):
            raise ExportError(f"conformance_tolerance needs a pteforge.Tolerance, got {type(tolerance).__name__}")
        self._tolerance = tolerance
        return self

    def _check_new_name(self, name: str, kind: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ExportError(f"{kind} name {name!r} is not a valid identifier")
        if name in GENERATED_METHODS or name == metadata.METADATA_METHOD:
            raise ExportError(f"{kind} name '{name}' is reserved for the method pteforge generates; rename yours")
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
            as a replay record (PteProgram.replay; pteforge.replay), to check the
            program again where it runs.

        Raises:
          ExportError: with the method and buffer concerned, and the fix.
        """
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
        tolerance = tolerance or self._tolerance or DEFAULT_TOLERANCE[backend]
        timer = StageTimer()

        captured: dict[str, CapturedMethod] = {}
        for spec in self._methods.values():
            with timer.stage(f"export {spec.name}"):
                function = getattr(type(self.module), spec.name, None)
                if function is None:  # a function stored on the instance
                    function = getattr(self.module, spec.name).__func__
                captured[spec.name] = capture(self.module, spec.name, function, spec.example_args, spec.dynamic_shapes)

        shared = state_lib.expand_declarations(self.module, self._shared)
        state = state_lib.classify(self.module, shared, list(captured.values()))
        for buffer in state:
            if buffer.shared and not buffer.methods:
                _log.warning("shared state '%s' is not used by any method", buffer.name)

        generated: dict[str, CapturedMethod] = {}
        if state:
            with timer.stage("generate reset_state and get_state"):
                generated[RESET_STATE_METHOD] = capture(
                    self.module, RESET_STATE_METHOD, state_lib.make_reset_state(state), ())
                generated[GET_STATE_METHOD] = capture(
                    self.module, GET_STATE_METHOD, state_lib.make_get_state(state), ())

        programs = {name: c.program for name, c in {**captured, **generated}.items()}
        constants = dict(self._constants)
        signatures = {name: method_signature(c.program) for name, c in captured.items()}
        constants[metadata.METADATA_METHOD] = metadata.encode(signatures, state, list(self._constants))
        state_names = [buffer.name for buffer in state]
        with timer.stage(f"to_edge and lowering ({backend})"):
            edge = lowering.to_edge_and_lower(programs, constants, backend, state_names)
        with timer.stage("memory planning and emission"):
            emitted = lowering.plan_and_emit(edge)
            data = emitted.buffer
        with timer.stage("verification"):
            plans = plan.read_plans(emitted.executorch_program)
            placements = check_state_placement(plans, state, list(generated))
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
            user_methods={name: c.program for name, c in captured.items()},
            generated_methods=list(generated),
            plans=plans,
            state=state,
            placements=placements,
            constants=self._constants,
            pte_bytes=len(data),
            constant_data_bytes=plan.constant_data_bytes(emitted.executorch_program, data),
            delegated=delegated,
            conformance=conformance,
        )
        replay = recorder.text() if recorder is not None else None
        return PteProgram(data=data, report=result, timings=timer.timings, replay=replay)
