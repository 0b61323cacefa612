"""LayerNorm written with means, the form XNNPACK delegates.

XNNPACK has no layer norm: left as nn.LayerNorm, each norm is a portable operator that
cuts the step's XNNPACK delegate in two (a Whisper-tiny-sized decoder step ran 13 of
them between 38 delegate calls). MeanLayerNorm computes the same normalization from
two means over the last dimension, a subtraction, a reciprocal square root and the
affine terms: operators XNNPACK takes, the means through pteforge.lower.xnnpack_means.
"""

from __future__ import annotations

import torch
from torch import nn


class MeanLayerNorm(nn.Module):
    """`norm` (an nn.LayerNorm over the last dimension), its parameters shared."""

    def __init__(self, norm: nn.LayerNorm):
        super().__init__()
        self.weight, self.bias, self.eps = norm.weight, norm.bias, norm.eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        centered = x - x.mean(-1, keepdim=True)
        out = centered * torch.rsqrt((centered * centered).mean(-1, keepdim=True) + self.eps)
        if self.weight is not None:
            out = out * self.weight
        return out if self.bias is None else out + self.bias


def layer_norms_as_means(model: nn.Module) -> int:
    """Replaces every nn.LayerNorm over one dimension in `model` by a MeanLayerNorm, in
    place; returns how many."""
    replaced = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is nn.LayerNorm and len(child.normalized_shape) == 1:
                setattr(parent, name, MeanLayerNorm(child))
                replaced += 1
    return replaced
