"""Slices of dynamic size up to a buffer's full size export and are exact at size 1, in
between and at the full size, on both backends; contiguous slices keep torch's own
graph."""

import itertools

import torch
from torch.export import Dim

from pteforge import MultiMethodExporter, load
from pteforge.capture.capture import capture
from pteforge.support import testing

import pytest

ROWS, COLUMNS = 5, 6


class Grid(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("grid", torch.zeros(ROWS, COLUMNS))

    def write_block(self, x: torch.Tensor) -> None:
        self.grid[0 : x.shape[0], 0 : x.shape[1]] = x

    def write_narrow(self, x: torch.Tensor) -> None:
        self.grid.narrow(0, 0, x.size(0)).narrow(1, 0, x.size(1)).copy_(x)

    def scale_block(self, x: torch.Tensor) -> None:
        self.grid.narrow(0, 0, x.size(0)).narrow(1, 0, x.size(1)).mul_(x)

    def read_block(self, x: torch.Tensor) -> torch.Tensor:
        return self.grid[: x.shape[0], : x.shape[1]] + x

    def read_into(self, out: torch.Tensor) -> None:
        out.copy_(self.grid.narrow(0, 0, out.size(0)).narrow(1, 0, out.size(1)))

    def write_rows(self, x: torch.Tensor) -> None:
        self.grid[: x.shape[0]] = x


_SIZES = (1, 3)  # with the full sizes below


def _calls(method: str):
    sizes = itertools.product(_SIZES + (ROWS,), _SIZES + (COLUMNS,))
    calls = []
    for step, (rows, columns) in enumerate(sizes):
        values = torch.arange(rows * columns, dtype=torch.float32).reshape(rows, columns) + 10 * step
        calls += [(method, (values,)), ("read_block", (torch.zeros(ROWS, COLUMNS),))]
    return calls


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
@pytest.mark.parametrize("method", ["write_block", "write_narrow", "scale_block", "read_into"])
def test_exact_at_size_one_in_between_and_full(method, backend):
    module = Grid().eval()
    module.grid.copy_(torch.randn(ROWS, COLUMNS, generator=torch.Generator().manual_seed(0)))
    exporter = MultiMethodExporter(module, name="grid").shared_state("grid")
    shapes = ({0: Dim("rows", min=1, max=ROWS), 1: Dim("columns", min=1, max=COLUMNS)},)
    exporter.method(method, (torch.ones(ROWS - 1, COLUMNS - 1),), dynamic_shapes=shapes)
    exporter.method("read_block", (torch.ones(ROWS - 1, COLUMNS - 1),), dynamic_shapes=shapes)
    exporter.call_sequence(_calls(method))
    program = exporter.export(backend=backend)  # conformance: every call against eager
    assert program.report["conformance"]["max_abs_error"] <= 1e-6
    # The full size once more, checked here: the whole grid read back.
    loaded = load(program.data)
    full = torch.full((ROWS, COLUMNS), 2.0)
    if method == "read_into":
        loaded.run(method, full)
        expected = module.grid.clone()
        assert torch.equal(full, expected)
    else:
        loaded.run(method, full)
        eager = Grid()
        eager.grid.copy_(module.grid)
        getattr(eager, method)(torch.full((ROWS, COLUMNS), 2.0))
        (got,) = loaded.run("read_block", torch.zeros(ROWS, COLUMNS))
        assert torch.equal(got, eager.grid)


def _operators(program) -> set[str]:
    return {str(node.target) for node in program.graph.nodes if node.op == "call_function"}


def test_slices_contiguous_at_every_size_keep_torchs_own_graph():
    module = Grid().eval()
    rows = ({0: Dim("rows", min=1, max=ROWS)},)
    leading = capture(module, "write_rows", Grid.write_rows, (torch.ones(3, COLUMNS),), rows)
    assert not any("index_copy" in op for op in _operators(leading.program))
    block = capture(module, "write_block", Grid.write_block, (torch.ones(3, 4),),
                    ({0: Dim("rows", min=1, max=ROWS), 1: Dim("columns", min=1, max=COLUMNS)},))
    assert any("index_copy" in op for op in _operators(block.program))


if __name__ == "__main__":
    testing.main(__file__)
