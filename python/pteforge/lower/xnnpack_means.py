"""Means over the last dimension in the form XNNPACK delegates, so that RMSNorm does not
cut a transformer's XNNPACK partitions apart.

RMSNorm and LayerNorm written out (`x.pow(2).mean(-1, keepdim=True)`) take the mean of a
[batch, tokens, hidden] tensor over its last dimension; XNNPACK delegates a mean only
over the two innermost dimensions of a 4D tensor (global average pooling). Left
portable, every norm splits the delegate in two: on a 30-layer Llama, 61 portable
means and as many extra delegate calls per decode step.

`means_as_pooling` rewrites mean(x [B, T, D], -1, keepdim) as
unsqueeze(x, -1) [B, T, D, 1] -> mean over (2, 3) [B, T, 1, 1] -> view [B, T, 1],
three operators XNNPACK takes (an unsqueeze of the last dimension, a mean over the
innermost two, a reshape with at most one dimension inferred). The arithmetic is the
same sum and division; where the shape has more than one dynamic dimension (a view
could not name it) the mean is left as it was.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

_MEAN = torch.ops.aten.mean.dim


def _last_dim_mean_of_3d(node: torch.fx.Node) -> bool:
    if node.op != "call_function" or node.target != _MEAN or node.kwargs.get("dtype") is not None:
        return False
    source = node.args[0]
    value = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    dims = node.args[1] if len(node.args) > 1 else None
    return (isinstance(value, torch.Tensor) and value.dim() == 3 and value.dtype == torch.float32
            and bool(keepdim) and list(dims or []) in ([-1], [2]))


def means_as_pooling(program: ExportedProgram) -> int:
    """Rewrites `program`'s means over the last dimension of 3D float tensors as above,
    in place; returns how many."""
    graph = program.graph
    changed = 0
    for node in list(graph.nodes):
        if not _last_dim_mean_of_3d(node):
            continue
        shape = node.meta["val"].shape
        dynamic = [index for index, size in enumerate(shape) if not isinstance(size, int)]
        if len(dynamic) > 1:
            continue
        view_shape = [-1 if index in dynamic else size for index, size in enumerate(shape)]
        source = node.args[0]
        with graph.inserting_before(node):
            column = graph.call_function(torch.ops.aten.unsqueeze.default, (source, -1))
            pooled = graph.call_function(_MEAN, (column, [2, 3], True))
            mean = graph.call_function(torch.ops.aten.view.default, (pooled, view_shape))
        for new in (column, pooled, mean):
            new.meta.update({key: value for key, value in node.meta.items() if key != "val"})
        column.meta["val"] = source.meta["val"].unsqueeze(-1)
        pooled.meta["val"] = column.meta["val"].mean((2, 3), keepdim=True)
        mean.meta["val"] = node.meta["val"]
        node.replace_all_uses_with(mean)
        graph.erase_node(node)
        changed += 1
    if changed:
        program.graph_module.recompile()
    return changed
