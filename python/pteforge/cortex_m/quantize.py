"""int8 weights for backend="cortex_m", with activations quantized on the fly.

`int8_linears(module)` gives every nn.Linear an int8 weight with one float32 scale per
output row and computes it with pteforge.linear_dq8 or linear_dq16, which quantize each
input row to int8 or int16 at run time (its own scale: no calibration, nothing about
the activations' range fixed at export). On the Cortex-M55, int8 activations run on
CMSIS-NN's int8 kernels (16 multiply-accumulates per Helium instruction), int16 ones on
pteforge's Helium loop (8 per instruction, with 256 times finer activations: what a
model that int8 activations move too far needs).

As with pteforge.lower.quantize for XNNPACK, the quantized module is what the exporter's
conformance check compares against; how far int8 moves a model's outputs from float32
is a model-level question for its tests and benchmarks.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from pteforge.cortex_m import ops  # noqa: F401  defines torch.ops.pteforge


# The integer type and largest magnitude of quantized weights, by bits.
WEIGHT_TYPES = {8: (torch.int8, 127), 16: (torch.int16, 32767)}


def quantize_weight(weight: torch.Tensor, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """[n, k] float -> (int8 [n, k], float32 scales [n]): each row symmetric, its largest
    magnitude mapped to 127 (bits=16: int16 and 32767)."""
    dtype, levels = WEIGHT_TYPES[bits]
    weight = weight.detach().float()
    scales = weight.abs().amax(dim=1).clamp(min=torch.finfo(torch.float32).tiny) / levels
    return torch.round(weight / scales[:, None]).clamp(-levels, levels).to(dtype), scales


class DynamicLinear(nn.Module):
    """y = x W^T + b on pteforge.linear_dq8 or linear_dq16 (activation_bits), from an
    int8 weight (int16 with linear_dq16) and its row scales."""

    def __init__(self, weight: torch.Tensor, scales: torch.Tensor, bias: torch.Tensor | None = None,
                 activation_bits: int = 8):
        super().__init__()
        if activation_bits not in ops.ACTIVATION_LEVELS:
            raise ValueError(f"activation_bits={activation_bits}: expected one of {sorted(ops.ACTIVATION_LEVELS)}")
        weight_types = (torch.int8, torch.int16) if activation_bits == 16 else (torch.int8,)
        if weight.dtype not in weight_types or weight.dim() != 2 or scales.shape != (weight.shape[0],):
            raise ValueError(f"DynamicLinear needs an {' or '.join(map(str, weight_types))} weight [n, k] and float32 "
                             f"scales [n], got {weight.dtype} {list(weight.shape)} and {list(scales.shape)}")
        self.register_buffer("weight", weight.contiguous())
        self.register_buffer("weight_scales", scales.detach().float().contiguous())
        self.bias = None if bias is None else nn.Parameter(bias.detach().float().clone(), requires_grad=False)
        self.operator = getattr(torch.ops.pteforge, f"linear_dq{activation_bits}")

    @classmethod
    def from_float(cls, weight: torch.Tensor, bias: torch.Tensor | None = None, activation_bits: int = 8,
                   weight_bits: int = 8) -> "DynamicLinear":
        """Quantizes a float [n, k] weight to `weight_bits` (quantize_weight)."""
        return cls(*quantize_weight(weight, weight_bits), bias, activation_bits)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.operator(x, self.weight, self.weight_scales, None, self.bias, False)


def int8_linears(module: nn.Module, keep: Callable[[nn.Module, str], bool] | None = None,
                 activation_bits: int = 8) -> nn.Module:
    """Replaces the nn.Linear layers of `module` by DynamicLinear (in place);
    `keep(layer, name)` returning True leaves a layer in float32. Returns `module`."""
    for name, layer in list(module.named_modules()):
        if not isinstance(layer, nn.Linear) or (keep and keep(layer, name)):
            continue
        parent_name, _, child = name.rpartition(".")
        parent = module.get_submodule(parent_name) if parent_name else module
        setattr(parent, child, DynamicLinear.from_float(layer.weight, layer.bias, activation_bits))
    return module
