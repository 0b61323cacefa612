"""A small stateful model: three methods sharing one cache, with dynamic row counts.

  set_cache(rows)   writes the first n rows of the cache (n dynamic, 1..4), counts calls
  get_cache(x)      reads the cache: cache + x (read-only: still sees every write)
  accumulate(x)     cache += x @ w, returns the column sums of the cache

`calls` is private state of set_cache: it counts set_cache calls and no other method
can clobber it. The first user of pte_export and of the C++ Session tests.
"""

import torch
from torch.export import Dim

from pteforge import MultiMethodExporter

ROWS = 4
WIDTH = 8


class StatefulCache(torch.nn.Module):
    """A [4, 8] cache shared by three methods, and a private call counter."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.full((ROWS, WIDTH), 0.5))
        self.register_buffer("calls", torch.zeros(1, dtype=torch.int64))
        generator = torch.Generator().manual_seed(0)
        self.weight = torch.nn.Parameter(torch.randn(WIDTH, WIDTH, generator=generator) / WIDTH)

    def set_cache(self, rows: torch.Tensor) -> torch.Tensor:
        """Overwrites the first rows.shape[0] rows; returns how often it was called."""
        self.cache.index_copy_(0, torch.arange(rows.shape[0]), rows)
        self.calls.add_(1)
        return self.calls.clone()

    def get_cache(self, x: torch.Tensor) -> torch.Tensor:
        """The cache plus x."""
        return self.cache + x

    def accumulate(self, x: torch.Tensor) -> torch.Tensor:
        """Adds x @ weight to the cache; returns its column sums."""
        self.cache.add_(x @ self.weight)
        return self.cache.sum(dim=0, keepdim=True)


def make_exporter(backend_hint: str = "") -> MultiMethodExporter:
    """The exporter for //models:stateful_pte."""
    del backend_hint  # the backend is chosen by the pte_export rule
    exporter = MultiMethodExporter(StatefulCache().eval(), name="stateful")
    exporter.shared_state("cache")
    rows = Dim("rows", min=1, max=ROWS)
    exporter.method("set_cache", (torch.ones(2, WIDTH),), dynamic_shapes=({0: rows},))
    exporter.method("get_cache", (torch.zeros(ROWS, WIDTH),))
    exporter.method("accumulate", (torch.ones(ROWS, WIDTH),))
    exporter.constant("max_rows", ROWS)
    exporter.call_sequence([
        ("set_cache", (torch.full((3, WIDTH), 2.0),)),
        ("get_cache", (torch.zeros(ROWS, WIDTH),)),
        ("accumulate", (torch.ones(ROWS, WIDTH),)),
        ("set_cache", (torch.arange(WIDTH, dtype=torch.float32).reshape(1, WIDTH),)),
        ("get_cache", (torch.ones(ROWS, WIDTH),)),
        ("set_cache", (torch.full((ROWS, WIDTH), -1.0),)),
        ("accumulate", (torch.eye(ROWS, WIDTH),)),
        ("get_cache", (torch.zeros(ROWS, WIDTH),)),
    ])
    return exporter
