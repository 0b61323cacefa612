"""What the corpus modules share: deterministic example inputs, build functions, and the
tolerances and messages several entries use."""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from pteforge.support.spec import Tolerance

# torch.export drops `self.h = ...`; pteforge refuses it, naming the buffer.
REASSIGNED = (r"^method 'step', buffer 'h': assigns a new tensor to the buffer \(`self\.h = \.\.\.`\)\. "
              r"torch\.export keeps only in-place writes.*self\.h\.copy_\(new_value\)")

HALF_TOLERANCE = Tolerance(atol=1e-3, rtol=1e-3)
BF16_TOLERANCE = Tolerance(atol=1e-2, rtol=1e-2)
INT8_TOLERANCE = Tolerance(atol=5e-2, rtol=5e-2)


def example_inputs(seed: int) -> Callable[..., torch.Tensor]:
    """A randn(*shape, dtype=...) drawing from its own seeded generator, so each corpus
    module's examples stay the same whatever the others draw."""
    generator = torch.Generator().manual_seed(seed)

    def randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return torch.randn(*shape, generator=generator).to(dtype)

    return randn


def i64(*values: int) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


def built(cls: type[nn.Module], *args, seed: int = 0, post: Callable[[nn.Module], nn.Module] | None = None):
    """A build function: seeds torch, constructs `cls(*args)`, optionally transforms it
    (e.g. quantizes it), and returns it in eval mode."""

    def build() -> nn.Module:
        torch.manual_seed(seed)
        module = cls(*args)
        if post is not None:
            module = post(module)
        return module.eval()

    build.__name__ = f"build_{cls.__name__}"
    return build
