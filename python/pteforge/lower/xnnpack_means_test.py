"""Means over the last dimension delegated to XNNPACK (xnnpack_means.py): an RMSNorm
between two linear layers is one delegate call with no portable mean, for a static and
a dynamic number of tokens, and the program equals eager (conformance)."""

import pytest
import torch
from torch.export import Dim

from pteforge import MultiMethodExporter
from pteforge.lower.xnnpack_means import means_as_pooling
from pteforge.support import testing


class NormBetweenLinears(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up, self.down = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, 32))

    def forward(self, x):
        hidden = self.up(x)
        hidden = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return self.down(hidden)


@pytest.mark.parametrize("dynamic", [False, True])
def test_an_rms_norm_stays_inside_the_delegate(dynamic):
    exporter = MultiMethodExporter(NormBetweenLinears().eval())
    shapes = ({1: Dim("tokens", min=1, max=12)},) if dynamic else None
    exporter.method("forward", (torch.randn(1, 5, 16),), dynamic_shapes=shapes)
    exporter.call_sequence([("forward", (torch.randn(1, length if dynamic else 5, 16),)) for length in (1, 5, 12)]
                           if dynamic else [("forward", (torch.randn(1, 5, 16),))])
    counts = testing.instructions(exporter.export(backend="xnnpack").data)["forward"]  # checked against eager
    assert counts[testing.DELEGATE] == 1
    assert not [name for name in counts if name.startswith("aten::mean")], counts


def test_means_it_cannot_express_are_left_alone():
    class Means(torch.nn.Module):
        def forward(self, x, y):
            return x.mean(-1, keepdim=True), x.mean(-1), y.mean(-1, keepdim=True)

    program = torch.export.export(Means(), (torch.ones(2, 3, 4), torch.ones(3, 4)),
                                  dynamic_shapes=({0: Dim("a"), 1: Dim("b")}, None))
    # Two dynamic dimensions (a view could name one), no keepdim, a 2D input.
    assert means_as_pooling(program) == 0


def test_the_rewrite_computes_the_same_means():
    class Mean(torch.nn.Module):
        def forward(self, x):
            return x.mean(-1, keepdim=True)

    program = torch.export.export(Mean(), (torch.ones(1, 3, 7),), dynamic_shapes=({1: Dim("t", max=9)},))
    assert means_as_pooling(program) == 1
    x = torch.randn(1, 6, 7)
    torch.testing.assert_close(program.module()(x), x.mean(-1, keepdim=True))


if __name__ == "__main__":
    testing.main(__file__)
