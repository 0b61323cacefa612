"""Repairs of torch.export graphs that functionalization would otherwise get wrong.

A broadcasting copy into a buffer, `self.acc.copy_(row)` with acc [2, 4] and row [4],
is exported correctly as aten.copy_(acc, row), but functionalization
(run_decompositions, torch 2.13) then writes `row` itself back as the buffer's new
value and gives it to every later reader: the method returns a [4] where eager
returns [2, 4], and the buffer's write-back has the wrong shape. Expanding the source
to the destination's shape first (what copy_ means) leaves nothing to broadcast.
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
