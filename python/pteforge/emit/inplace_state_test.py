"""State updated by index_put is written in place (no copy of the buffer); index_put on
a temporary is left alone (rewriting it miscompiles, see inplace_state.py)."""

import torch
from torch.export import Dim

from pteforge import ExportError, MultiMethodExporter, load
from pteforge.emit import inplace_state
from pteforge.support import testing

import pytest


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
    return {method: set(counts) for method, counts in testing.instructions(data).items()}


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


class PositionsBuffer(torch.nn.Module):
    """ExecuTorch's extension/llm KVCache: written at the positions a buffer holds,
    `cache[:, pos[:n]] = values`, which advance by n. With batch 1 the values reach
    index_put without their batch dimension, a shape the in-place kernel refuses."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 8, 2, 4))
        self.register_buffer("positions", torch.arange(0, 8))

    def update(self, values: torch.Tensor) -> torch.Tensor:
        length = values.shape[1]
        self.cache[:, self.positions[:length]] = values
        self.positions.add_(length)
        return self.cache.clone()


def _positions_exporter() -> MultiMethodExporter:
    exporter = MultiMethodExporter(PositionsBuffer().eval()).method("update", (torch.ones(1, 3, 2, 4),))
    return exporter.call_sequence([("update", (torch.full((1, 3, 2, 4), float(i)),)) for i in (1, 2)])


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_values_the_in_place_kernel_cannot_take_stay_functional(backend):
    result = _positions_exporter().export(backend=backend)  # conformance: equal to eager
    operators = _operators(result.data)["update"]
    assert "aten::index_put.out" in operators and "aten::index_put_" not in operators


def test_the_in_place_kernel_forced_on_them_fails_with_its_own_reason(monkeypatch):
    # What the check above prevents, and what a kernel failure at conformance says.
    monkeypatch.setattr(inplace_state, "_kernel_takes", lambda node: True)
    with pytest.raises(ExportError, match=r"ExecuTorch said: .*Special case in-place index_put requires values"):
        _positions_exporter().export()


class ReturnedUpdate(torch.nn.Module):
    """Returns an index_put of the state, then changes the state otherwise: the
    returned value is not what the buffer keeps, so it must not be written in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.zeros(6, 4))

    def step(self, rows: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        updated = self.state.index_put((rows,), values)
        self.state.add_(1)
        return updated


def test_the_decision_follows_the_order_the_method_runs_in():
    # XNNPACK may place a delegated update of the state before an index_put that
    # reads the old state; the index_put is then the buffer's last reader, yet not
    # the value the buffer keeps. Simulated on the edge program: the add moved first.
    from pteforge.lower import lowering

    programs = {"step": torch.export.export(_as_forward(ReturnedUpdate(), "step"),
                                            (torch.tensor([1, 3]), torch.ones(2, 4))).run_decompositions({})}
    edge = lowering.to_edge_and_lower(programs, {}, "portable", ["state"]).exported_program("step")
    nodes = list(edge.graph.nodes)
    index_put = next(n for n in nodes if "index_put" in str(n.target))
    add = next(n for n in nodes if "aten.add" in str(n.target))
    index_put.prepend(add)
    assert inplace_state.update_state_in_place(edge) == 0
    assert "index_put_" not in str(index_put.target)


def _as_forward(module: torch.nn.Module, method: str) -> torch.nn.Module:
    module.forward = getattr(module, method)
    return module.eval()


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_an_update_the_buffer_does_not_keep_stays_functional(backend):
    exporter = MultiMethodExporter(ReturnedUpdate().eval()).method("step", (torch.tensor([1, 3]), torch.ones(2, 4)))
    result = exporter.export(backend=backend)
    assert "aten::index_put_" not in _operators(result.data)["step"]
    exporter.check(result, exporter.random_calls(4, seed=0))


class AttendsToItsCache(torch.nn.Module):
    """A key cache written at a position, then read through a reshape (a view) by a
    batched matmul, as an attention over a KV cache does."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 2, 16, 8))

    def step(self, key: torch.Tensor, position: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        self.keys.index_copy_(2, position, key)
        return torch.bmm(query, self.keys.reshape(2, 16, 8).transpose(1, 2))


def test_a_view_of_the_state_written_in_place_reads_the_state():
    # The view of index_put_'s result once read memory ExecuTorch never planned (NaN).
    exporter = MultiMethodExporter(AttendsToItsCache().eval()).shared_state("keys")
    arguments = lambda seed, position: (torch.randn(1, 2, 1, 8, generator=torch.Generator().manual_seed(seed)),
                                        torch.tensor([position]), torch.ones(2, 3, 8))
    exporter.method("step", arguments(0, 0))
    exporter.call_sequence([("step", arguments(seed, position)) for seed, position in ((1, 0), (2, 5), (3, 15))])
    result = exporter.export(backend="portable")  # conformance compared every call with eager
    assert "aten::index_put_" in _operators(result.data)["step"]


if __name__ == "__main__":
    testing.main(__file__)
