"""Reshapes of a dynamic size delegated to XNNPACK (xnnpack_reshapes.py): heads split
from and merged back into a dynamic number of tokens, as attention does, stay inside one
delegate call, and the program equals eager (conformance)."""

import torch
from torch.export import Dim

from pteforge import MultiMethodExporter
from pteforge.lower.xnnpack_reshapes import reshapes_with_one_inferred_size
from pteforge.support import testing


class SplitHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.into, self.out = torch.nn.Linear(32, 32), torch.nn.Linear(32, 8)

    def forward(self, x):
        tokens = x.shape[1]
        heads = self.into(x).view(1, tokens, 4, 8).transpose(1, 2)  # [1, 4, tokens, 8]
        return self.out(torch.relu(heads).transpose(1, 2).reshape(1, tokens, 32))


def test_reshapes_of_a_dynamic_token_count_stay_inside_the_delegate():
    exporter = MultiMethodExporter(SplitHeads().eval())
    exporter.method("forward", (torch.randn(1, 5, 32),), dynamic_shapes=({1: Dim("tokens", min=1, max=16)},))
    exporter.call_sequence([("forward", (torch.randn(1, length, 32),)) for length in (1, 5, 16)])
    counts = testing.instructions(exporter.export(backend="xnnpack").data)["forward"]  # checked against eager
    assert counts[testing.DELEGATE] == 1, counts
    assert not [name for name in counts if "view" in name], counts


def test_only_reshapes_with_one_dynamic_size_are_rewritten():
    class Reshapes(torch.nn.Module):
        def forward(self, x):
            a, b = x.shape[0], x.shape[1]
            return x.view(a, b, 2, 3), x.reshape(a * b, 6), x.view(a, b * 6)

    program = torch.export.export(Reshapes(), (torch.ones(2, 3, 6),), dynamic_shapes=({0: Dim("a"), 1: Dim("b")},))
    assert reshapes_with_one_inferred_size(program) == 1  # the second: one dynamic size, a * b
    x = torch.randn(3, 4, 6)
    for got, expected in zip(program.module()(x), (x.view(3, 4, 2, 3), x.reshape(12, 6), x.view(3, 24))):
        assert torch.equal(got, expected)


if __name__ == "__main__":
    testing.main(__file__)
