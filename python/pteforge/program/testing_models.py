"""Small modules exercising what can go wrong when methods share state (testonly).

Each class isolates one behaviour; the factories at the end are for the CLI tests.
"""

import warnings

import torch
import torch.nn.functional as F
from torch.export import Dim

from pteforge import MultiMethodExporter


class Cache(torch.nn.Module):
    """set / get / accumulate on one [4, 8] cache; `calls` is set's private counter."""

    def __init__(self, fill: float = 0.5) -> None:
        super().__init__()
        self.register_buffer("cache", torch.full((4, 8), fill))
        self.register_buffer("calls", torch.zeros(1, dtype=torch.int64))
        self.weight = torch.nn.Parameter(torch.randn(8, 8, generator=torch.Generator().manual_seed(1)) / 8)

    def set(self, rows: torch.Tensor) -> torch.Tensor:
        self.cache.index_copy_(0, torch.arange(rows.shape[0]), rows)
        self.calls.add_(1)
        return self.calls.clone()

    def get(self, x: torch.Tensor) -> torch.Tensor:
        return self.cache + x

    def accumulate(self, x: torch.Tensor) -> torch.Tensor:
        self.cache.add_(x @ self.weight)
        return self.cache.sum(dim=0, keepdim=True)


def cache_exporter(module: Cache | None = None) -> MultiMethodExporter:
    """Cache with `cache` shared, `set` taking 1..4 rows."""
    exporter = MultiMethodExporter((module or Cache()).eval(), name="cache")
    exporter.shared_state("cache")
    exporter.method("set", (torch.ones(2, 8),), dynamic_shapes=({0: Dim("rows", min=1, max=4)},))
    exporter.method("get", (torch.zeros(4, 8),))
    exporter.method("accumulate", (torch.ones(4, 8),))
    return exporter


class Counters(torch.nn.Module):
    """Two methods with a private counter each, and one with large activations."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("a", torch.zeros(16))
        self.register_buffer("b", torch.full((16,), 100.0))

    def tick_a(self, x: torch.Tensor) -> torch.Tensor:
        self.a.add_(x)
        return self.a.clone()

    def tick_b(self, x: torch.Tensor) -> torch.Tensor:
        self.b.sub_(x)
        return self.b.clone()

    def scratch(self, x: torch.Tensor) -> torch.Tensor:
        # Large temporaries fill the work arena with values that are not the counters.
        y = x.repeat(64, 1) * 7.0 + 3.0
        return (y @ y.t()).sum().reshape(1)


class Table(torch.nn.Module):
    """State with a non-uniform initial value (reset_state must store a copy)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.arange(12, dtype=torch.float32).reshape(3, 4))

    def scale(self, factor: torch.Tensor) -> torch.Tensor:
        self.table.mul_(factor)
        return self.table.sum().reshape(1)


class Scaler(torch.nn.Module):
    """A submodule with state, behaving differently by a Python flag."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x: torch.Tensor, double: bool) -> torch.Tensor:
        self.count.add_(1.0 if double else 10.0)
        return x * 2 if double else x + 1


class TwoCalls(torch.nn.Module):
    """Calls one submodule twice with different constant flags in one method."""

    def __init__(self) -> None:
        super().__init__()
        self.scaler = Scaler()

    def run(self, x: torch.Tensor) -> torch.Tensor:
        return self.scaler(x, True) * 100 + self.scaler(x, False)

    def count(self, x: torch.Tensor) -> torch.Tensor:
        return self.scaler.count + x


class InPlaceThenUse(torch.nn.Module):
    """In-place updates of a buffer followed by an out-of-place use of it."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.ones(4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.state.mul_(2)
        self.state.add_(x)
        return self.state * 9

    def peek(self, x: torch.Tensor) -> torch.Tensor:
        return self.state - x


class MutatesInput(torch.nn.Module):
    def bump(self, x: torch.Tensor) -> torch.Tensor:
        x.add_(1)
        return x * 2


class Branchy(torch.nn.Module):
    def choose(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x * 2
        return x - 1


class SliceWrite(torch.nn.Module):
    """Writes n columns of a [2, 8] buffer, n dynamic up to the full width."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buffer", torch.zeros(2, 8))

    def write_slice(self, x: torch.Tensor) -> torch.Tensor:
        self.buffer[:, : x.shape[1]] = x
        return self.buffer.sum().reshape(1)

    def write_index(self, x: torch.Tensor) -> torch.Tensor:
        self.buffer.index_copy_(1, torch.arange(x.shape[1]), x)
        return self.buffer.sum().reshape(1)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.buffer + x


class Aliased(torch.nn.Module):
    """One state buffer reachable as inner.state and alias.state."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = torch.nn.Module()
        self.inner.register_buffer("state", torch.zeros(3))
        self.alias = self.inner

    def write(self, x: torch.Tensor) -> torch.Tensor:
        self.alias.state.add_(x)
        return x.clone()

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner.state + x


class ReadAsWeight(torch.nn.Module):
    """Reads state as a linear layer's weight: XNNPACK would pack it as a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("weight", torch.eye(8))

    def set_weight(self, w: torch.Tensor) -> torch.Tensor:
        self.weight.copy_(w)
        return w.sum().reshape(1)

    def project(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight)


# --- Factories for the CLI tests ------------------------------------------------------

class Noisy(torch.nn.Module):
    """Makes its dependencies print: a warning while it is traced, torchao and torch
    messages while the exporter runs, and a matmul big enough for ExecuTorch's
    optimized kernels to start their thread pool, whose cpuinfo lines C++ prints."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(256, 256)
        self.register_buffer("acc", torch.zeros(64, 256))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        warnings.warn("a warning from inside a traced method", UserWarning)
        self.acc.add_(self.lin(x))
        return self.acc.sum(0)


def make_noisy() -> MultiMethodExporter:
    return MultiMethodExporter(Noisy().eval(), name="noisy").method("step", (torch.randn(64, 256),))


def make_cache() -> MultiMethodExporter:
    return cache_exporter()


def make_branchy() -> MultiMethodExporter:
    return MultiMethodExporter(Branchy().eval()).method("choose", (torch.ones(3),))


def make_with_args(fill: str) -> MultiMethodExporter:
    return cache_exporter(Cache(fill=float(fill)))


def make_not_an_exporter() -> str:
    return "not an exporter"


def make_raising() -> MultiMethodExporter:
    raise RuntimeError("the checkpoint is missing")
