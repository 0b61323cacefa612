"""A partitioner wrapper that keeps state out of delegates' constant data.

XNNPACK treats a buffer used as a weight (`F.linear(x, self.cache)`, `x @ self.cache`)
as static data and packs a copy into its delegate blob: the method then silently
ignores every later write to the state (FINDINGS.md). SharedStateGuard runs the real
partitioner, and drops every partition that would take a state buffer as constant
data, so that part of the graph runs on the portable kernels against the live state.
Partitions that only read state as a runtime input are kept.

It also keeps out of partitions the copies at their edges (clone and same-dtype copy
ops whose input the partition computes and whose users are all outside it): XNNPACK
elides a copy, so a delegate computing `acc + y` and returning both it (written back
to the state) and its clone would have one value as two outputs, which XNNPACK's
preprocessing refuses ("Output node ... is already in the inputs"). On the portable
kernels such a copy is what the method asks for anyway.

And it keeps out the reshapes (view_copy) that only feed what runs outside the
partition: XNNPACK runs a reshape of a tensor it does not compute as a copy into its
own output, while ExecuTorch emits a view outside a delegate as an alias of the same
memory. A decode step handing its cache buffers to pteforge::cached_attention through
views otherwise copied every buffer on every step (18 MB for Whisper-tiny's
cross-attention).
"""

from __future__ import annotations

import logging
from typing import Callable, Collection, List, Optional, Tuple

import torch
from executorch.exir.backend.partitioner import Partitioner, PartitionResult
from torch.export import ExportedProgram

_log = logging.getLogger("pteforge")

_TAG = "delegation_tag"

# Copies XNNPACK elides (a delegate output that is a copy of another output is refused).
_COPY_OPS = frozenset({
    "aten::clone",
    "dim_order_ops::_clone_dim_order",
    "aten::_to_copy",
    "dim_order_ops::_to_dim_order_copy",
})


_VIEW_OPS = frozenset({"aten::view_copy"})


def _operator(node: torch.fx.Node) -> str | None:
    """The node's operator as its schema names it ("aten::view_copy"), or None."""
    schema = getattr(node.target, "_schema", None)
    return schema.name if schema is not None else None


def _is_view(node: torch.fx.Node) -> bool:
    return _operator(node) in _VIEW_OPS


def _is_copy(node: torch.fx.Node) -> bool:
    if _operator(node) not in _COPY_OPS:
        return False
    source = node.args[0] if node.args else None
    value, result = getattr(source, "meta", {}).get("val"), node.meta.get("val")
    return value is not None and result is not None and value.dtype == result.dtype


class SharedStateGuard(Partitioner):
    """Wraps a partitioner; no partition it returns owns a state buffer as a constant.

    Args:
      inner: the backend's partitioner.
      state: fully-qualified names of the program's state buffers.
      method: the method being partitioned, for log messages (set by the caller).
    """

    def __init__(self, inner: Partitioner, state: Collection[str]):
        super().__init__(inner.spec)
        self.inner = inner
        self.state = frozenset(state)
        self.dropped: list[tuple[str, str]] = []  # (tag, buffer) pairs, for tests and logs

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        result = self.inner.partition(exported_program)
        program = result.tagged_exported_program
        buffers = program.graph_signature.inputs_to_buffers
        doomed: dict[str, str] = {}
        for node in program.graph.nodes:
            if node.op != "placeholder" or _TAG not in node.meta:
                continue
            name = buffers.get(node.name)
            if name in self.state:
                doomed.setdefault(node.meta[_TAG], name)
        for node in program.graph.nodes:
            if node.meta.get(_TAG) in doomed:
                del node.meta[_TAG]
        for node in program.graph.nodes:
            tag = node.meta.get(_TAG)
            if tag is None or not _is_copy(node) or node.args[0].meta.get(_TAG) != tag:
                continue
            if all(user.meta.get(_TAG) != tag for user in node.users):
                del node.meta[_TAG]  # a copy at the partition's edge: keep it outside
        _untag_edge_views(program.graph)
        for tag, buffer in doomed.items():
            result.partition_tags.pop(tag, None)
            self.dropped.append((tag, buffer))
            _log.warning(
                "the %s delegate would have packed state buffer '%s' as constant data; "
                "that partition runs on portable kernels instead (write x @ buffer.t() "
                "rather than F.linear(x, buffer) or x @ buffer to keep it delegated)",
                type(self.inner).__name__, buffer,
            )
        return result

    def ops_to_not_decompose(
        self, ep: ExportedProgram
    ) -> Tuple[List[torch._ops.OpOverload], Optional[Callable[[torch.fx.Node], bool]]]:
        """The inner partitioner's ops, except at nodes that read state directly.

        An op kept whole for the delegate (e.g. linear) must then be delegated; where it
        reads state, partition() may refuse it, so it is decomposed like any other op.
        """
        ops, inner_check = self.inner.ops_to_not_decompose(ep)
        buffers = ep.graph_signature.inputs_to_buffers
        state_inputs = {name for name, fqn in buffers.items() if fqn in self.state}
        if not state_inputs:
            return ops, inner_check

        def supported(node: torch.fx.Node) -> bool:
            reads_state = any(
                isinstance(arg, torch.fx.Node) and arg.name in state_inputs
                for arg in node.all_input_nodes
            )
            return not reads_state and (inner_check is None or inner_check(node))

        return ops, supported

    def transform_for_pre_decomposition(self, exported_program: ExportedProgram) -> ExportedProgram:
        return self.inner.transform_for_pre_decomposition(exported_program)


def _untag_edge_views(graph: torch.fx.Graph) -> None:
    """Takes out of their partitions the views whose users all run outside it, until
    none is left (a chain of views at an edge leaves whole)."""
    nodes = [node for node in graph.nodes if _is_view(node)]
    changed = True
    while changed:
        changed = False
        for node in nodes:
            tag = node.meta.get(_TAG)
            if tag is not None and all(user.meta.get(_TAG) != tag for user in node.users):
                del node.meta[_TAG]
                changed = True
