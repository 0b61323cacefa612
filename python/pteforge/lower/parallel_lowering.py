"""Lowering a program's methods in parallel processes.

Edge dialect and delegation work on one method at a time and in one thread (fake-tensor
re-tracing, pass after pass), so a multi-method export leaves every core but one idle:
a Bergamot export spent 27 s lowering `encode` and 12 s lowering the rest, one after the
other. Here the methods are split into groups of about equal cost (graph nodes, those
with symbolic shapes counted twice: lowering_cost); the process lowers the costliest
group itself while forked children lower the others and hand each lowered method back
through ExecuTorch's own serializer (exir.serde, which keeps the delegates), the
delegates' weights beside it, raw (_serialize).

A child that fails costs only time: its group is lowered again here (pteforge.support.
forked, which capture/parallel_capture.py shares). The result does not depend on the
number of processes: the .pte is byte-identical (parallel_lowering_test).
"""

from __future__ import annotations

import logging
from typing import Callable, Mapping

import torch
from torch.export import ExportedProgram

from pteforge.support import forked

_log = logging.getLogger("pteforge")

# Below this lowering cost (graph nodes, ATen, before decompositions; a Bergamot decode_step has
# 174, lowered in about 9 s) a group is not worth a process (fork, serialization and
# deserialization cost about 0.3 s); the test models stay serial.
MIN_NODES_PER_PROCESS = 150

LowerGroup = Callable[[Mapping[str, ExportedProgram]], Mapping[str, ExportedProgram]]


def split_by_size(sizes: Mapping[str, int], jobs: int, min_size: int | None = None) -> list[list[str]]:
    """Splits methods into at most `jobs` groups of about equal total size, largest first.

    Greedy: each method, largest first, joins the group with the least so far. Groups
    below `min_size` (default MIN_NODES_PER_PROCESS), other than the first, are merged
    into the first, which stays in this process. Each group keeps the methods' order.
    """
    min_size = MIN_NODES_PER_PROCESS if min_size is None else min_size
    order = {name: index for index, name in enumerate(sizes)}
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(sizes))))]
    totals = [0] * len(groups)
    for name in sorted(sizes, key=lambda n: (-sizes[n], order[n])):
        smallest = totals.index(min(totals))
        groups[smallest].append(name)
        totals[smallest] += sizes[name]
    ranked = sorted(range(len(groups)), key=lambda i: -totals[i])
    groups = [groups[i] for i in ranked]
    totals = [totals[i] for i in ranked]
    kept = [groups[0]] + [g for g, t in zip(groups[1:], totals[1:]) if g and t >= min_size]
    kept[0] = kept[0] + [n for g, t in zip(groups[1:], totals[1:]) if g and t < min_size for n in g]
    return [sorted(group, key=order.__getitem__) for group in kept if group]


def lowering_cost(program: ExportedProgram) -> int:
    """Its graph nodes, those with a symbolic shape counted twice: each re-trace reasons
    about their sizes. A causal LM's `prefill` (401 nodes at 4 layers, 285 of them
    symbolic) took 122 s to lower at 135M parameters, its `decode_step` (391, none) 73 s."""
    def symbolic(node: torch.fx.Node) -> bool:
        value = node.meta.get("val")
        return isinstance(value, torch.Tensor) and any(isinstance(size, torch.SymInt) for size in value.shape)

    return sum(2 if symbolic(node) else 1 for node in program.graph.nodes)


def lower_methods(programs: Mapping[str, ExportedProgram], lower_group: LowerGroup, jobs: int) -> dict[str, ExportedProgram]:
    """Lowers every method with `lower_group`, in up to `jobs` processes.

    Returns the lowered programs in the order of `programs`.
    """
    sizes = {name: lowering_cost(program) for name, program in programs.items()}
    groups = split_by_size(sizes, jobs) if forked.can_fork() else [list(programs)]
    if len(groups) == 1:
        return dict(lower_group(dict(programs)))
    _log.info("lowering in %d processes: %s", len(groups),
              "; ".join(", ".join(group) for group in groups))
    known = known_tensors(programs)

    def lower(group: list[str]) -> Mapping[str, ExportedProgram]:
        return lower_group({name: programs[name] for name in group})

    def pack(result: Mapping[str, ExportedProgram]) -> dict:
        return {name: _serialize(program, known) for name, program in result.items()}

    def unpack(packed: dict) -> dict[str, ExportedProgram]:
        return {name: _deserialize(serialized, known) for name, serialized in packed.items()}

    lowered = forked.share_out(groups, lower, pack, unpack, "lowering", "lowered")
    return {name: lowered[name] for name in programs}


def known_tensors(programs: Mapping[str, ExportedProgram]) -> forked.KnownTensors:
    """The methods' parameters, buffers and constants before lowering, which a lowered
    method still holds (the programs outside its delegates, and the delegates' original
    programs): the child names them, and they are not copied."""
    return forked.KnownTensors({f"{method}:{kind}:{key}": value for method, program in programs.items()
                                for kind, table in forked.tensor_tables(program).items() for key, value in table.items()
                                if isinstance(value, torch.Tensor)})


def _serialize(program: ExportedProgram, known: forked.KnownTensors) -> tuple:
    """ExecuTorch's serialization of `program`, its tensors and its delegates' payloads
    beside it.

    exir.serde writes each delegate's named data (XNNPACK's weights) and its original
    program's parameters into JSON as base64: at 135M parameters, about 25 s each way,
    which was as long as lowering the method itself. The named data travel raw instead
    (pickle); the tensors the methods held before lowering travel by name only (`known`);
    the serialized program holds empty stand-ins. `program` keeps the stand-ins too:
    the child process serializing it exits next.
    """
    from executorch.exir.serde import serialize as serde

    payloads = [_detach_payload(module, known) for module in _lowered_modules(program)]
    tensors = known.detach(forked.tensor_tables(program))
    artifact = serde.serialize(program)
    return (artifact.exported_program, artifact.state_dict, artifact.constants, artifact.example_inputs), payloads, tensors


def _deserialize(serialized: tuple, known: forked.KnownTensors) -> ExportedProgram:
    from executorch.exir.serde import serialize as serde
    from torch._export.serde.serialize import SerializedArtifact

    artifact, payloads, tensors = serialized
    # The serializer drops requires_grad from the values; plan_and_emit drops it from
    # every method (lowering.py), so the .pte does not depend on the path taken.
    program = serde.deserialize(SerializedArtifact(*artifact))
    known.attach(forked.tensor_tables(program), *tensors)
    modules = _lowered_modules(program)
    if len(modules) != len(payloads):
        raise RuntimeError(f"{len(modules)} delegates read back where {len(payloads)} were written")
    for module, payload in zip(modules, payloads):
        _attach_payload(module, payload, known)
    return program


def _lowered_modules(program: ExportedProgram) -> list:
    """The program's delegates in graph order (the order survives serialization)."""
    from executorch.exir.delegate import executorch_call_delegate

    modules = []
    for graph_module in program.graph_module.modules():
        if isinstance(graph_module, torch.fx.GraphModule):
            for node in graph_module.graph.nodes:
                if node.op == "call_function" and node.target is executorch_call_delegate:
                    modules.append(getattr(graph_module, node.args[0].target))
    return modules


def _detach_payload(module, known: forked.KnownTensors) -> tuple:
    """Takes the delegate's named data buffers and its original program's tensors out,
    leaving stand-ins the serializer writes in a few bytes."""
    store = module.named_data_store_output
    buffers = None
    if store is not None:
        buffers, store.buffers = store.buffers, [b""] * len(store.buffers)
    return buffers, known.detach(forked.tensor_tables(module.original_module))


def _attach_payload(module, payload: tuple, known: forked.KnownTensors) -> None:
    buffers, tensors = payload
    store = module.named_data_store_output
    if (store is None) != (buffers is None) or (store is not None and len(store.buffers) != len(buffers)):
        raise RuntimeError("a delegate's named data does not match what was written")
    if store is not None:
        store.buffers = buffers
    known.attach(forked.tensor_tables(module.original_module), *tensors)
