"""Weight quantization for the XNNPACK backend, applied to a module before export.

`int8_linears` gives every nn.Linear int8 weights, one scale per output channel, and
int8 activations quantized on the fly per row at run time ("dynamic"): XNNPACK's
qd8-f32-qc8w GEMM. At batch 1 a decoder step reads each weight once, so the step is
bound by memory traffic, and int8 weights read a quarter of the bytes of float32.

The quantized module is what the exporter's conformance check compares against: the
.pte is proven equal to the quantized eager module, and how far quantization moves the
outputs from float32 is a separate, model-level question (a benchmark's, not export's).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

QUANTIZATIONS = ("none", "int8")


def int8_linears(module: nn.Module, keep: Callable[[nn.Module, str], bool] | None = None) -> nn.Module:
    """Quantizes the nn.Linear layers of `module` in place (see the module docstring);
    `keep(layer, name)` returning True leaves a layer in float32. Returns `module`."""
    from torchao.quantization.granularity import PerAxis
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.utils import unwrap_tensor_subclass

    def selected(layer: nn.Module, name: str) -> bool:
        return isinstance(layer, nn.Linear) and not (keep and keep(layer, name))

    config = Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int8, weight_granularity=PerAxis(0))
    quantize_(module, config, filter_fn=selected)
    # Plain tensors and parametrizations instead of tensor subclasses: what torch.export
    # captures as quantize/dequantize ops that the XNNPACK partitioner recognizes.
    unwrap_tensor_subclass(module)
    return module
