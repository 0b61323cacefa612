"""The report written next to each .pte (<name>.report.json) and its short summary.

The report holds no timings or paths, so two exports of the same model give the same
report as well as the same .pte.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Mapping, Sequence

import torch
from pteforge.capture.signature import dtype_name
from pteforge.emit.plan import MethodPlan, Placement
from pteforge.state.state import StateBuffer
from pteforge.support.instructions import DELEGATE
from pteforge.support.spec import Tolerance
from pteforge.verify.conformance import ConformanceResult

REPORT_FORMAT = 1


def _calls(counts: collections.Counter) -> dict[str, Any]:
    """A method's delegate calls and the operators it runs outside a delegate, per call."""
    operators = {name: count for name, count in sorted(counts.items()) if name != DELEGATE}
    return {"delegate_calls": counts.get(DELEGATE, 0), "operator_calls": sum(operators.values()),
            "operators": operators}


def build(
    *,
    name: str,
    backend: str,
    signatures: Mapping[str, Mapping[str, Any]],
    generated_methods: Sequence[str],
    plans: Mapping[str, MethodPlan],
    state: Sequence[StateBuffer],
    placements: Mapping[str, Placement],
    constants: Mapping[str, Any],
    pte_bytes: int,
    constant_data_bytes: int,
    delegated: Mapping[str, int],
    instructions: Mapping[str, collections.Counter],
    conformance: ConformanceResult,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """Assembles the report dictionary (JSON-serializable, deterministic).

    `signatures` are the user methods' (pteforge.capture.signature.method_signature): inputs,
    outputs and the arguments each writes. `instructions`: instruction_counts of the
    program. `notes`: what the exporter changed that the user should know."""
    executable = [*signatures, *generated_methods]
    work = {method: plans[method].work_bytes for method in executable}
    state_arena = max((plans[m].state_bytes for m in executable), default=0)
    shared_work = max(work.values(), default=0)
    separate_work = sum(work.values())
    return {
        "format": REPORT_FORMAT,
        "name": name,
        "backend": backend,
        "versions": {"torch": torch.__version__, "executorch": _executorch_version()},
        "methods": {
            method: {
                **signature,
                "planned_work_bytes": work[method],
                "delegates": delegated.get(method, 0),
                **_calls(instructions.get(method, collections.Counter())),
            }
            for method, signature in signatures.items()
        },
        "generated_methods": {
            method: {"planned_work_bytes": work[method]} for method in generated_methods
        },
        "constants": {key: _constant_summary(value) for key, value in constants.items()},
        "state": [
            {
                "name": buffer.name,
                "shared": buffer.shared,
                "dtype": dtype_name(buffer.initial.dtype),
                "shape": list(buffer.initial.shape),
                "bytes": placements[buffer.name].nbytes,
                "memory_id": placements[buffer.name].memory_id,
                "offset": placements[buffer.name].offset,
                "methods": list(buffer.methods),
            }
            for buffer in state
        ],
        "memory": {
            "state_arena_bytes": state_arena,
            # Methods never run at the same time, so one work arena of the largest
            # method's size serves them all (what pteforge's Session allocates) ...
            "work_arena_bytes_shared": shared_work,
            # ... against one work arena per method (ExecuTorch's default loaders).
            "work_arena_bytes_separate": separate_work,
            "total_planned_bytes_shared": shared_work + state_arena,
            "total_planned_bytes_separate": separate_work + state_arena,
        },
        "sizes": {"pte_bytes": pte_bytes, "constant_data_bytes": constant_data_bytes},
        "conformance": {
            "passed": True,
            "calls": list(conformance.sequence),
            "values_compared": conformance.values_compared,
            "max_abs_error": conformance.max_abs_error,
            "tolerance": dataclasses.asdict(conformance.tolerance),
        },
        "notes": list(notes),
    }


def _constant_summary(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return {"dtype": dtype_name(value.dtype), "shape": list(value.shape)}
    if isinstance(value, str) and len(value) > 80:
        return {"type": "str", "length": len(value)}
    return value


def _executorch_version() -> str:
    from importlib import metadata

    return metadata.version("executorch")


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


def summary(report: Mapping[str, Any]) -> str:
    """A few lines for a human: methods, state, memory, sizes, conformance."""
    memory = report["memory"]
    lines = [
        f"{report['name']}: {len(report['methods'])} methods ({', '.join(report['methods'])}), "
        f"backend {report['backend']}, {_size(report['sizes']['pte_bytes'])} "
        f"({_size(report['sizes']['constant_data_bytes'])} constant data)",
    ]
    for entry in report["state"]:
        kind = "shared" if entry["shared"] else "private"
        lines.append(
            f"  state {entry['name']} ({kind}, {entry['dtype']} {entry['shape']}, "
            f"{_size(entry['bytes'])} at offset {entry['offset']}): {', '.join(entry['methods']) or 'no user method'}"
        )
    for method, entry in report["methods"].items():
        if entry.get("writes"):
            arguments = ", ".join(str(index) for index in entry["writes"])
            lines.append(f"  {method} writes its argument{'s' if len(entry['writes']) > 1 else ''} {arguments} "
                         "in place (the caller's tensors are updated)")
    lines.append(
        f"  planned memory: {_size(memory['total_planned_bytes_shared'])} with one shared work arena "
        f"({_size(memory['work_arena_bytes_shared'])} work + {_size(memory['state_arena_bytes'])} state), "
        f"{_size(memory['total_planned_bytes_separate'])} with one arena per method"
    )
    for method, entry in report["methods"].items():
        if "delegate_calls" in entry and (entry["delegate_calls"] or entry["operator_calls"]):
            lines.append(f"  {method}: {entry['delegate_calls']} delegate calls and {entry['operator_calls']} "
                         "operators outside a delegate per call")
    lines.extend(f"  note: {note}" for note in report.get("notes", ()))
    conformance = report["conformance"]
    lines.append(
        f"  conformance: {len(conformance['calls'])} calls, {conformance['values_compared']} values "
        f"match eager PyTorch (max abs error {conformance['max_abs_error']:.2g}; "
        f"{Tolerance(**conformance['tolerance']).describe()})"
    )
    return "\n".join(lines)
