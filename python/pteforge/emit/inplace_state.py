"""Updates of state written in place: index_put into a state buffer becomes index_put_.

After functionalization, `cache.index_put_(...)` is a functional index_put whose output
is copied back into the buffer: two copies of the whole buffer per update (the
kernel's output, then the write-back) where the update itself touches a few rows. For
a decoder's KV cache that is most of a step's time. This pass turns such an
index_put back into ExecuTorch's in-place index_put_, and ExecuTorch then writes in
place and drops the write-back.

It runs on each method as it will execute: after delegation, in the graph order the
emitter keeps. An index_put is rewritten only when all of these hold:
  - it is on the chain of index_puts that starts at the state buffer and ends at the
    value written back into that buffer: writing in place then changes the buffer to
    exactly what the method leaves in it. (A method that returns
    `state.index_put(...)` and then changes the state otherwise does not qualify: the
    returned value would alias the buffer and change with it.)
  - nothing reads the buffer's old value, or a chain value, after it is overwritten;
  - ExecuTorch's in-place kernel takes the operands (check_special_case_in_place_args
    in its op_index_put.cpp): no accumulate, one index tensor, one-dimensional, of
    int64 or int32, and values of the buffer's dtype and exactly the buffer's shape but
    at the indexed dimension, where they match the index's length (no broadcasting:
    `cache[:, idx] = v` with a batch-1 `v` of one dimension less stays functional).
Everything else stays functional: slower, and always right.

It does what ExecuTorch's experimental reinplace_pass does, restricted to state
buffers: that pass also rewrites index_put on temporaries, and the memory planner
then reuses the temporary's memory while the in-place result still lives there (seen
with transformers' Marian encoder: wrong cross-attention keys, caught by conformance).
"""

from __future__ import annotations

from typing import Any

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.fx import Node

_INDEX_PUT = exir_ops.edge.aten.index_put.default


def update_state_in_place(program: ExportedProgram) -> int:
    """Rewrites eligible index_put nodes of `program` in place; returns how many."""
    signature = program.graph_signature
    placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
    buffer_inputs = {fqn: placeholders.get(name) for name, fqn in signature.inputs_to_buffers.items()}
    order = {node: index for index, node in enumerate(program.graph.nodes)}
    final_values = {node.name: node for node in program.graph.output_node().args[0] if isinstance(node, Node)}
    rewritten = 0
    for value_name, buffer in signature.buffers_to_mutate.items():
        final = final_values.get(value_name)
        buffer_input = buffer_inputs.get(buffer)
        if final is None or buffer_input is None:
            continue
        for node in _chain_written_in_place(buffer_input, final, order):
            node.target = exir_ops.edge.aten.index_put_.default
            rewritten += 1
    return rewritten


def _chain_written_in_place(buffer_input: Node, final: Node, order: dict[Node, int]) -> list[Node]:
    """The index_puts from the buffer to its final value that can write in place, in
    order: the longest prefix of that chain that qualifies (see the module docstring)."""
    chain = []
    node = final
    while isinstance(node, Node) and node.op == "call_function" and node.target == _INDEX_PUT:
        chain.append(node)
        node = node.args[0]
    if node is not buffer_input:
        return []  # the final value is not the buffer updated by index_puts
    chain.reverse()
    eligible = []
    source = buffer_input
    for step in chain:
        # Whatever reads the value this step overwrites must have run before it.
        if any(user is not step and order[user] > order[step] for user in source.users):
            break
        if not _kernel_takes(step):
            break
        eligible.append(step)
        source = step
    return eligible


def _kernel_takes(node: Node) -> bool:
    """Whether ExecuTorch's in-place index_put_ kernel accepts these operands."""
    buffer, indices, values = node.args[0], node.args[1], node.args[2]
    accumulate = node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False)
    if accumulate:
        return False
    present = [(dim, index) for dim, index in enumerate(indices) if index is not None]
    if len(present) != 1:
        return False
    dim, index = present[0]
    target, index_value, values_value = _value(buffer), _value(index), _value(values)
    if not all(isinstance(v, torch.Tensor) for v in (target, index_value, values_value)):
        return False
    if index_value.dim() != 1 or index_value.dtype not in (torch.int64, torch.int32):
        return False
    if values_value.dtype != target.dtype or values_value.dim() != target.dim():
        return False
    expected = list(target.shape)
    expected[dim] = index_value.shape[0]
    return all(_same_size(got, want) for got, want in zip(values_value.shape, expected))


def _value(node: Any) -> Any:
    return node.meta.get("val") if isinstance(node, Node) else None


def _same_size(a: Any, b: Any) -> bool:
    """Sizes equal for every value of their symbols (a dynamic size equal to another
    only for some values would make the kernel fail at run time)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    expr_a = a.node.expr if isinstance(a, torch.SymInt) else a
    expr_b = b.node.expr if isinstance(b, torch.SymInt) else b
    try:
        return bool((expr_a - expr_b) == 0)
    except TypeError:
        return False
