"""Reshapes of a dynamic size in the form XNNPACK delegates, so that a method with a
dynamic token count (an LLM's prefill) keeps its reshapes inside the delegate.

XNNPACK delegates a reshape whose target shape is plain integers with at most one -1;
torch.export records `x.view(batch, tokens, -1, head_dim)` with the token count as a
symbol (and the -1 resolved), which XNNPACK refuses. Left portable, such a reshape
cuts the delegate in two, and the tensor at the cut is planned by ExecuTorch at its
largest size: on a 135M-parameter Llama at max_seq_len 2048, prefill's attention
intermediates made the planned work memory 364 MB.

`reshapes_with_one_inferred_size` rewrites every reshape whose result has exactly one
dynamic dimension to name its static sizes as integers and the dynamic one as -1: the
same shape, which XNNPACK takes. Reshapes with more than one dynamic dimension stay.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

_RESHAPES = (torch.ops.aten.view.default, torch.ops.aten.reshape.default, torch.ops.aten._unsafe_view.default)


def reshapes_with_one_inferred_size(program: ExportedProgram) -> int:
    """Rewrites `program`'s reshapes as above, in place; returns how many."""
    changed = 0
    for node in program.graph.nodes:
        if node.op != "call_function" or node.target not in _RESHAPES:
            continue
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor):
            continue
        dynamic = [index for index, size in enumerate(value.shape) if not isinstance(size, int)]
        shape = [-1 if index in dynamic else size for index, size in enumerate(value.shape)]
        if len(dynamic) != 1 or list(node.args[1]) == shape:
            continue
        node.args = (node.args[0], shape, *node.args[2:])
        changed += 1
    if changed:
        program.graph_module.recompile()
    return changed
