"""State updated by index_put is written in place (no copy of the buffer); index_put on
a temporary is left alone (rewriting it miscompiles, see inplace_state.py)."""

import torch
from torch.export import Dim

from pteforge import MultiMethodExporter, load, testing


class Positions(torch.nn.Module):
    """A [rows, positions, width] cache written one position at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(4, 16, 8))

    def write(self, values: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        # values: [4, 1, 8]; a temporary built with index_copy (an index_put on a
        # fresh tensor after decomposition), then written at one position of the cache.
        padded = torch.zeros(4, 1, 8).index_copy(0, torch.arange(values.shape[0]), values)
        self.cache[:, position] = padded
        return self.cache.sum().reshape(1)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.cache + x


def _operators(data: bytes) -> dict[str, set[str]]:
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(data)
    program = getattr(program, "program", program)
    return {plan.name: {f"{op.name}{'.' + op.overload if op.overload else ''}" for op in plan.operators}
            for plan in program.execution_plan}


def test_state_index_put_is_in_place_and_correct():
    exporter = MultiMethodExporter(Positions().eval()).shared_state("cache")
    exporter.method("write", (torch.ones(3, 1, 8), torch.tensor([2])),
                    dynamic_shapes=({0: Dim("rows", min=1, max=4)}, None))
    exporter.method("read", (torch.zeros(4, 16, 8),))
    exporter.call_sequence([
        ("write", (torch.full((2, 1, 8), 3.0), torch.tensor([0]))),
        ("write", (torch.full((4, 1, 8), 5.0), torch.tensor([15]))),
        ("read", (torch.zeros(4, 16, 8),)),
    ])
    result = exporter.export()  # conformance compared every call with eager
    operators = _operators(result.data)["write"]
    assert "aten::index_put_" in operators  # the cache write, in place
    assert "aten::index_put.out" in operators  # the temporary, left functional
    program = load(result.data)
    program.run("write", torch.full((2, 1, 8), 3.0), torch.tensor([7]))
    (cache,) = program.run("read", torch.zeros(4, 16, 8))
    assert torch.equal(cache[:2, 7], torch.full((2, 8), 3.0))
    assert cache[2:, 7].abs().sum() == 0 and cache[:, :7].abs().sum() == 0


if __name__ == "__main__":
    testing.main(__file__)
