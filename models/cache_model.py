"""The canonical cache model of multi-method ExecuTorch: set_cache / get_cache on one buffer.

The example the idea of pteforge grew from, written exactly as its authors wrote it:

  set_cache(data)   self.cache[0:data.shape[0], 0:data.shape[1]] = data; returns None
  get_cache(data)   data.copy_(self.cache.narrow(...).narrow(...)); returns None: the
                    caller's tensor receives the first rows x columns of the cache

Both take [rows, columns] with rows 1..10 and columns 1..20, up to the [10, 20] cache's
full size. Its original C++ test fills a [10, 20] tensor of ones through set_cache,
calls get_cache with a tensor of zeros, and requires that the zeros tensor now holds
ones (tests/cache_model does that on every target).
"""

import torch
from torch.export import Dim

from pteforge import MultiMethodExporter

ROWS = 10
COLUMNS = 20


class CacheModel(torch.nn.Module):
    """A [10, 20] float cache written by set_cache and read into its argument by get_cache."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(ROWS, COLUMNS))

    def set_cache(self, data: torch.Tensor) -> None:
        self.cache[0 : data.shape[0], 0 : data.shape[1]] = data
        return None

    def get_cache(self, data: torch.Tensor) -> None:
        data.copy_(self.cache.narrow(0, 0, data.size(0)).narrow(1, 0, data.size(1)))
        return None


def make_exporter() -> MultiMethodExporter:
    """The exporter for //models:cache_model_pte (and its XNNPACK twin)."""
    exporter = MultiMethodExporter(CacheModel().eval(), name="cache_model")
    exporter.shared_state("cache")
    shapes = ({0: Dim("rows", min=1, max=ROWS), 1: Dim("columns", min=1, max=COLUMNS)},)
    exporter.method("set_cache", (torch.ones(ROWS - 1, COLUMNS - 1),), dynamic_shapes=shapes)
    exporter.method("get_cache", (torch.zeros(ROWS - 1, COLUMNS - 1),), dynamic_shapes=shapes)
    # The original test first (ones in, zeros out), then the full size, size 1 and sizes
    # in between, each read back whole and at its own size.
    calls = [("set_cache", (torch.ones(ROWS, COLUMNS),)), ("get_cache", (torch.zeros(ROWS, COLUMNS),))]
    for step, (rows, columns) in enumerate([(1, 1), (ROWS, 7), (4, COLUMNS), (3, 11), (ROWS, COLUMNS), (1, COLUMNS)]):
        values = torch.arange(rows * columns, dtype=torch.float32).reshape(rows, columns) + 100 * step
        calls += [
            ("set_cache", (values,)),
            ("get_cache", (torch.zeros(ROWS, COLUMNS),)),
            ("get_cache", (torch.full((rows, columns), -1.0),)),
        ]
    exporter.call_sequence(calls)
    return exporter
