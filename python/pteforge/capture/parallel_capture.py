"""Capturing a module's methods in parallel processes.

torch.export traces one method at a time, in one thread (dynamo, then
functionalization): SmolLM2-135M-Instruct's `prefill` took 27 s and its `decode_step`
14 s, one after the other (float32; 53 s and 38 s in 4-bit), while the second core
waited. Here this process captures the first method registered (a causal LM's prefill,
the costliest) while forked children capture the others, dealt in turn to up to
jobs - 1 of them, and hand each captured program back through torch.export's own
serializer (pteforge.support.forked).

The module's parameters and buffers do not travel: the child notes which of the
module's tensors a program holds, by their names in the module, and this process puts
its own tensors back, the very objects a capture here would have held (shared weights
stay shared, the state stays the module's). Only tensors the trace made itself (lifted
constants) travel, raw. The programs are byte-identical to a serial export's
(parallel_capture_test).

Before a capture its cost is unknown; the module's size stands in for it. Below
MIN_PARAMETERS parameters a method captures in a few seconds, about what a child's
start and handover cost, so the test models stay serial.
"""

from __future__ import annotations

import functools
import logging
from typing import Callable, Sequence

import torch

from pteforge.capture.capture import CapturedMethod
from pteforge.support import forked
from pteforge.support.progress import StageTimer

_log = logging.getLogger("pteforge")

# SmolLM2-135M has 135M; its decode_step took 14 s to capture and 5 s to hand over.
MIN_PARAMETERS = 50_000_000

CaptureOne = Callable[[str], CapturedMethod]


def capture_methods(module: torch.nn.Module, names: Sequence[str], capture_one: CaptureOne, jobs: int,
                    timer: StageTimer) -> dict[str, CapturedMethod]:
    """capture_one(name) for every method, in up to `jobs` processes; in `names`' order."""
    groups = _groups(module, names, jobs)
    if len(groups) == 1:
        captured = {}
        for name in names:
            with timer.stage(f"export {name}"):
                captured[name] = capture_one(name)
        return captured
    with timer.stage(f"export {', '.join(names)}"):
        _log.info("capturing in %d processes: %s", len(groups), "; ".join(", ".join(group) for group in groups))
        captured = _capture_in_processes(module, groups, capture_one)
    return {name: captured[name] for name in names}


def _groups(module: torch.nn.Module, names: Sequence[str], jobs: int) -> list[list[str]]:
    """The first method here, the others dealt in turn to up to jobs - 1 children."""
    parameters = sum(parameter.numel() for parameter in module.parameters())
    children = min(jobs, len(names)) - 1
    if children < 1 or parameters < MIN_PARAMETERS or not forked.can_fork():
        return [list(names)]
    groups: list[list[str]] = [[names[0]]] + [[] for _ in range(children)]
    for index, name in enumerate(names[1:]):
        groups[1 + index % children].append(name)
    return groups


def _capture_in_processes(module: torch.nn.Module, groups: list[list[str]],
                          capture_one: CaptureOne) -> dict[str, CapturedMethod]:
    def capture(group: list[str]) -> dict[str, CapturedMethod]:
        return {name: capture_one(name) for name in group}

    return forked.share_out(groups, capture, functools.partial(_pack, module), functools.partial(_unpack, module),
                            "capturing", "captured")


def _module_tensors(module: torch.nn.Module) -> forked.KnownTensors:
    return forked.KnownTensors({**dict(module.named_parameters(remove_duplicate=False)),
                                **dict(module.named_buffers(remove_duplicate=False))})


def _pack(module: torch.nn.Module, captured: dict[str, CapturedMethod]) -> dict:
    """Each method as torch.export's serialization, the module's tensors in it by name
    and the trace's own tensors raw beside it. (The programs are changed: the child
    exits next.)"""
    from torch._export.serde import serialize as serde

    known = _module_tensors(module)
    packed = {}
    for method, result in captured.items():
        program = result.program
        by_name, raw = known.detach(forked.tensor_tables(program))
        artifact = serde.serialize(program)
        serialized = (artifact.exported_program, artifact.state_dict, artifact.constants, artifact.example_inputs)
        packed[method] = (serialized, by_name, raw, _traced_from_gradients(program), result.reads, result.writes,
                          result.written_args)
    return packed


def _unpack(module: torch.nn.Module, packed: dict) -> dict[str, CapturedMethod]:
    from torch._export.serde import serialize as serde
    from torch._export.serde.serialize import SerializedArtifact

    known = _module_tensors(module)
    captured = {}
    for method, (serialized, by_name, raw, non_leaves, reads, writes, written_args) in packed.items():
        program = serde.deserialize(SerializedArtifact(*serialized))
        _make_non_leaves(program, non_leaves)
        known.attach(forked.tensor_tables(program), by_name, raw)
        captured[method] = CapturedMethod(method, program, reads, writes, written_args)
    return captured


def _traced_from_gradients(program: torch.export.ExportedProgram) -> list[str]:
    """The nodes whose value requires grad without being a leaf: a state buffer written
    from a parameter (`self.cache.add_(x @ self.weight)`) is one in the trace. The
    serializer keeps the flag but makes every value a leaf, and an in-place write into a
    leaf that requires grad fails when ExecuTorch re-traces the write-back."""
    return [node.name for node in program.graph.nodes
            if isinstance(node.meta.get("val"), torch.Tensor)
            and node.meta["val"].requires_grad and not node.meta["val"].is_leaf]


def _make_non_leaves(program: torch.export.ExportedProgram, names: list[str]) -> None:
    wanted = set(names)
    with torch.enable_grad():
        for node in program.graph.nodes:
            if node.name in wanted:
                # The same fake tensor (shape, strides, dtype, flag), computed from one.
                node.meta["val"] = node.meta["val"].detach().requires_grad_(True).clone()
