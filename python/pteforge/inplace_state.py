"""Updates of state written in place: index_put into a state buffer becomes index_put_.

After functionalization, `cache.index_put_(...)` is a functional index_put whose output
is copied back into the buffer: two copies of the whole buffer per update (the
kernel's output, then the write-back) where the update itself touches a few rows. For
a decoder's KV cache that is most of a step's time. This pass turns such an
index_put back into ExecuTorch's in-place index_put_ when it is safe: its input is the
state buffer itself, nothing reads the buffer after it, and it does not accumulate
(ExecuTorch's in-place kernel refuses accumulate=True). ExecuTorch then writes in
place and drops the write-back.

It does what ExecuTorch's experimental reinplace_pass does, restricted to state
buffers: that pass also rewrites index_put on temporaries, and the memory planner
then reuses the temporary's memory while the in-place result still lives there (seen
with transformers' Marian encoder: wrong cross-attention keys, caught by conformance).
"""

from __future__ import annotations

from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram


def update_state_in_place(program: ExportedProgram) -> int:
    """Rewrites eligible index_put nodes of `program` in place; returns how many."""
    signature = program.graph_signature
    mutated = set(signature.buffers_to_mutate.values())
    state_inputs = {name for name, fqn in signature.inputs_to_buffers.items() if fqn in mutated}
    nodes = list(program.graph.nodes)
    order = {node: index for index, node in enumerate(nodes)}
    rewritten = 0
    for node in nodes:
        if node.op != "call_function" or node.target != exir_ops.edge.aten.index_put.default:
            continue
        target = node.args[0]
        if getattr(target, "op", None) != "placeholder" or target.name not in state_inputs:
            continue
        if any(order[user] > order[node] for user in target.users):
            continue  # the old value is still read later
        if (node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False)):
            continue  # ExecuTorch's in-place index_put_ refuses accumulate=True
        node.target = exir_ops.edge.aten.index_put_.default
        rewritten += 1
    return rewritten
