"""Repairs of torch.export graphs that functionalization would otherwise get wrong.

A broadcasting copy into a buffer, `self.acc.copy_(row)` with acc [2, 4] and row [4],
is exported correctly as aten.copy_(acc, row), but functionalization
(run_decompositions, torch 2.13) then writes `row` itself back as the buffer's new
value and gives it to every later reader: the method returns a [4] where eager
returns [2, 4], and the buffer's write-back has the wrong shape. Expanding the source
to the destination's shape first (what copy_ means) leaves nothing to broadcast.

Functionalization also leaves operators outside Core ATen that ExecuTorch's edge
conversion refuses (an in-place write to `state.diagonal()` becomes diagonal_scatter;
batch norm updating its running statistics, _native_batch_norm_legit_functional):
`decompose_outside_core` decomposes them, with pteforge's own decompositions where
torch's leave what functionalization refuses.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram


def expand_broadcast_copies(program: ExportedProgram) -> int:
    """Makes every broadcasting aten.copy_ copy a tensor of its destination's shape;
    returns how many were changed."""
    graph = program.graph
    changed = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target != torch.ops.aten.copy_.default:
            continue
        destination, source = node.args[0], node.args[1]
        want = getattr(destination, "meta", {}).get("val")
        have = getattr(source, "meta", {}).get("val")
        if want is None or not isinstance(have, torch.Tensor) or tuple(have.shape) == tuple(want.shape):
            continue
        with graph.inserting_before(node):
            expanded = graph.call_function(torch.ops.aten.expand.default, (source, list(want.shape)))
        expanded.meta["val"] = have.expand(want.shape)
        node.args = (destination, expanded, *node.args[2:])
        changed += 1
    if changed:
        program.graph_module.recompile()
    return changed


def decompose_outside_core(program: ExportedProgram) -> ExportedProgram:
    """Decomposes the operators functionalization leaves that are outside Core ATen and
    that ExecuTorch's edge conversion would refuse (it decomposes only those in its own
    table): `diagonal_scatter` from an in-place write to `state.diagonal()`,
    `_native_batch_norm_legit_functional` from batch norm updating running statistics,
    and what their decompositions leave (`var_mean`). Operators ExecuTorch decomposes
    itself, or a backend may keep whole (aten.linear for XNNPACK), are left to it.
    """
    from executorch.exir.tracer import _default_decomposition_table
    from torch._decomp import get_decompositions

    handled = _default_decomposition_table()
    for _ in range(4):  # a decomposition may leave another such operator
        outside = sorted({
            node.target for node in program.graph.nodes
            if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload)
            and node.target.namespace == "aten" and torch.Tag.core not in node.target.tags
            and node.target not in handled
        }, key=str)
        table = get_decompositions(outside)
        table.update({op: own for op, own in _OWN_DECOMPOSITIONS.items() if op in outside})
        if not table:
            break
        program = program.run_decompositions(table)
    return program


def _diagonal_scatter(input: torch.Tensor, src: torch.Tensor, offset: int = 0, dim1: int = 0,
                      dim2: int = 1) -> torch.Tensor:
    """aten.diagonal_scatter as one index_put (torch's own decomposition writes with
    prims.copy_to, which functionalization refuses)."""
    dim1, dim2 = dim1 % input.dim(), dim2 % input.dim()
    length = src.shape[-1]
    rows = torch.arange(length, device=input.device) + max(-offset, 0)
    columns = torch.arange(length, device=input.device) + max(offset, 0)
    front = input.movedim((dim1, dim2), (0, 1))
    written = front.index_put((rows, columns), src.movedim(-1, 0))
    return written.movedim((0, 1), (dim1, dim2))


def _batch_norm_training(input: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                         running_mean: torch.Tensor, running_var: torch.Tensor, training: bool,
                         momentum: float, eps: float) -> tuple[torch.Tensor, ...]:
    """aten._native_batch_norm_legit_functional (batch norm updating its running
    statistics) in Core ATen operators (torch's own decomposition leaves prims that
    functionalization refuses). Returns (output, mean, 1/std, new running mean, new
    running variance), the running variance updated with the unbiased variance as
    eager PyTorch does."""
    reduced = [0] + list(range(2, input.dim()))
    shape = [1, -1] + [1] * (input.dim() - 2)
    # The count per channel as a tensor: arithmetic on a dynamic size would leave
    # symbolic float operations ExecuTorch does not run.
    count = torch.ones_like(input).sum(reduced)
    mean = input.sum(reduced) / count
    centered = input - mean.reshape(shape)
    squares = (centered * centered).sum(reduced)
    variance = squares / count
    inverse_std = torch.rsqrt(variance + eps)
    output = centered * inverse_std.reshape(shape)
    if weight is not None:
        output = output * weight.reshape(shape)
    if bias is not None:
        output = output + bias.reshape(shape)
    new_mean = running_mean * (1 - momentum) + mean * momentum
    new_variance = running_var * (1 - momentum) + squares / (count - 1).clamp(min=1) * momentum
    return output, mean, inverse_std, new_mean, new_variance


_OWN_DECOMPOSITIONS = {
    torch.ops.aten.diagonal_scatter.default: _diagonal_scatter,
    torch.ops.aten._native_batch_norm_legit_functional.default: _batch_norm_training,
}
