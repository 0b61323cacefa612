"""SharedStateGuard's edges: the views whose users all run outside a partition leave it
(XNNPACK would copy them; outside, ExecuTorch emits an alias), views inside stay."""

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge

from pteforge.lower.partitioners import SharedStateGuard
from pteforge.support import testing

_TAG = "delegation_tag"


class _ViewsAtTheEdge(torch.nn.Module):
    """A delegated linear whose output is viewed twice before a sort (which XNNPACK
    does not take), and a view between two delegated linears."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(8, 8)
        self.second = torch.nn.Linear(8, 8)

    def forward(self, x):
        inner = self.second(self.first(x).view(2, 8))
        return torch.sort(inner.view(16).view(4, 4), dim=-1).values


def _views():
    program = to_edge(torch.export.export(_ViewsAtTheEdge().eval(), (torch.randn(1, 2, 8),))).exported_program()
    guard = SharedStateGuard(XnnpackPartitioner(), state=[])
    graph = guard.partition(program).tagged_exported_program.graph
    return [node for node in graph.nodes if node.op == "call_function" and "view_copy" in str(node.target)]


def test_views_feeding_only_the_outside_leave_the_partition():
    views = _views()
    # The chain of two views before the sort left; the views between delegated
    # operators (the linears' own, and the one between them) stayed.
    outside = [view for view in views if _TAG not in view.meta]
    assert [user.target.__name__ for user in outside[-1].users] == ["aten.sort.default"]
    assert len(outside) == 2 and outside[0].users.keys() == {outside[1]}
    inside = [view for view in views if _TAG in view.meta]
    assert len(inside) >= 3
    for view in inside:
        assert any(user.meta.get(_TAG) == view.meta[_TAG] for user in view.users), view


if __name__ == "__main__":
    testing.main(__file__)
