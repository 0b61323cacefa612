"""Constant folding on the portable kernels (fold.py): a linear layer's weight is
transposed once at export, not on every call, and state is never folded, even in a
method that only reads it."""

import torch

from pteforge import MultiMethodExporter, load
from pteforge.support import testing


def operators(data: bytes) -> set[str]:
    return {name for counts in testing.instructions(data).values() for name in counts}


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.layer(x)


class ReadsStateTransposed(torch.nn.Module):
    """`read` only reads `memory` (a constant to ExecuTorch's pass, which looks at one
    method at a time); `write` changes it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("memory", torch.eye(4))

    def write(self, x):
        self.memory.copy_(x)
        return x.sum().reshape(1)

    def read(self, x):
        return x @ self.memory.t()


def test_a_linear_layers_weight_is_transposed_at_export():
    exporter = MultiMethodExporter(Linear().eval()).method("forward", (torch.ones(2, 8),))
    portable = operators(exporter.export(backend="portable").data)
    assert "aten::addmm.out" in portable and "aten::permute_copy.out" not in portable


def test_state_read_by_one_method_and_written_by_another_is_not_folded():
    exporter = MultiMethodExporter(ReadsStateTransposed().eval()).shared_state("memory")
    exporter.method("write", (torch.ones(4, 4),)).method("read", (torch.ones(2, 4),))
    exporter.call_sequence([
        ("read", (torch.ones(2, 4),)),
        ("write", (torch.arange(16.0).reshape(4, 4),)),
        ("read", (torch.ones(2, 4),)),
    ])
    data = exporter.export(backend="portable").data  # conformance compared every call with eager
    assert "aten::permute_copy.out" in operators(data)  # the state's transpose stays a runtime op
    program = load(data)
    program.run("write", torch.arange(16.0).reshape(4, 4))
    (got,) = program.run("read", torch.ones(2, 4))
    assert torch.equal(got, torch.ones(2, 4) @ torch.arange(16.0).reshape(4, 4).t())


if __name__ == "__main__":
    testing.main(__file__)
