"""Makes delegation's partition fusing linear instead of quadratic, with the same result.

ExecuTorch fuses each partition a backend claims into one call (create_submodule_from_
nodes), then restores a topological order of the whole graph with torch's
legalize_graph, which copies every node into a new graph and regenerates the graph
module's Python code. Once per partition: with P partitions of an N-node graph that is
P copies and P code generations of N nodes. A language model's prefill has hundreds of
partitions (XNNPACK leaves views with symbolic sizes to the portable kernels, which cuts
the graph between them): a 30-layer, SmolLM2-135M-sized prefill spent over 10 minutes
there, 96% of its lowering.

sorted_in_place_while_fusing() replaces that step, inside ExecuTorch's fusing loop, by
the same sort done in place: the same order (torch's algorithm: Kahn's, a queue seeded
in graph order, users visited in their order, the runtime assertions torch prioritizes
put first), each node's users reordered as node_copy would have created them, and the
code regenerated once when the loop ends. Only the node copies and the code generations
go; the programs are byte-identical (shortcuts_test). It acts only when torch's
legalize_graph is the one this was written against (torch 2.13), and with an ExecuTorch
that has the functions it replaces.
"""

from __future__ import annotations

import collections
import contextlib
import operator

import torch

from pteforge.lower.speedups.source_patch import source_digest

# sha256 of torch.fx.passes.tools_common.legalize_graph's source (torch 2.13), first 16 digits.
_KNOWN_SOURCE = "6dc8094b32ebd463"

# torch.fx.passes.tools_common.legalize_graph's PRIORITIZED_OPS (torch 2.13): nodes
# with these targets jump the queue when they become ready.
_PRIORITIZED_OPS = frozenset([
    operator.add, operator.mul, operator.sub, operator.floordiv, operator.truediv, operator.mod,
    operator.le, operator.lt, operator.ge, operator.gt, operator.eq, operator.ne,
    torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
    torch.ops.aten._assert_async.msg,
    torch.ops.aten.scalar_tensor.default,
    torch.ops.aten._assert_scalar.default,
])


def legalized_order(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """The node order torch's legalize_graph gives `graph`."""
    nodes = list(graph.nodes)
    indegree = dict.fromkeys(nodes, 0)
    for node in nodes:
        for user in node.users:
            indegree[user] += 1
    queue = collections.deque(node for node in nodes if indegree[node] == 0)
    order = []
    while queue:
        current = queue.popleft()
        order.append(current)
        for user in current.users:
            indegree[user] -= 1
            if indegree[user] == 0:
                if user.op == "call_function" and user.target in _PRIORITIZED_OPS:
                    queue.appendleft(user)
                else:
                    queue.append(user)
    if len(order) < len(nodes):
        raise RuntimeError(f"Input graph has cycles, unable to add {[n for n in indegree if indegree[n] != 0]}")
    return order


def sort_in_place(graph: torch.fx.Graph) -> None:
    """Puts `graph`'s nodes in legalize_graph's order without copying them, and orders
    every node's users as copies made in that order would list them."""
    order = legalized_order(graph)
    position = {node: index for index, node in enumerate(order)}
    anchor = graph._root
    for node in order:  # each node after the one before it
        if anchor._next is not node:
            anchor.append(node)
        anchor = node
    for node in order:
        users = node.users
        if len(users) > 1:
            ordered = sorted(users, key=position.__getitem__)
            if list(users) != ordered:
                users.clear()
                users.update(dict.fromkeys(ordered))


@contextlib.contextmanager
def sorted_in_place_while_fusing():
    """Within the block, ExecuTorch's partition fusing sorts the graph in place and
    regenerates its code once per fusing loop, not once per partition."""
    try:
        from executorch.exir import lowered_backend_module
        from executorch.exir.backend import backend_api
    except ImportError:
        yield
        return
    original_legalize = getattr(lowered_backend_module, "legalize_graph", None)
    original_loop = getattr(backend_api, "_create_partitions_in_graph_module", None)
    if (original_legalize is None or original_loop is None or getattr(original_loop, "_pteforge", False)
            or source_digest(original_legalize) != _KNOWN_SOURCE):
        yield  # another ExecuTorch or torch, or already inside the block
        return
    fusing: list[torch.fx.GraphModule] = []  # the graph module of the loop running

    def legalize_graph(graph_module):
        if fusing and graph_module is fusing[-1]:
            sort_in_place(graph_module.graph)
            return graph_module
        return original_legalize(graph_module)

    def create_partitions(tagged_graph_module, *args, **kwargs):
        fusing.append(tagged_graph_module)
        try:
            return original_loop(tagged_graph_module, *args, **kwargs)
        finally:
            fusing.pop()
            tagged_graph_module.recompile()

    create_partitions._pteforge = True
    lowered_backend_module.legalize_graph = legalize_graph
    backend_api._create_partitions_in_graph_module = create_partitions
    try:
        yield
    finally:
        lowered_backend_module.legalize_graph = original_legalize
        backend_api._create_partitions_in_graph_module = original_loop
