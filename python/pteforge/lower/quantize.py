"""Weight quantization for the XNNPACK backend, applied to a module before export.

`int8_linears` gives every nn.Linear int8 weights, one scale per output channel, and
int8 activations quantized on the fly per row at run time ("dynamic"): XNNPACK's
qd8-f32-qc8w GEMM. At batch 1 a decoder step reads each weight once, so the step is
bound by memory traffic, and int8 weights read a quarter of the bytes of float32.

`int4_linears` is torchao's "8da4w", what ExecuTorch ships its language models with:
4-bit weights with one scale per group of GROUP_SIZE input channels, the same dynamic
int8 activations (XNNPACK's qd8-f32-qb4w GEMM). An eighth of float32's bytes, and on
x86 CPUs without VNNI the GEMM XNNPACK runs fastest (its 8-bit weights widen to 16 bits).
A layer whose input size is not a multiple of the group size stays in int8.

`int8_embeddings` stores every nn.Embedding table in int8 with one scale per row, read by
ExecuTorch's quantized `embedding_byte` kernel (a quarter of float32's bytes: on a
SmolLM2-135M-sized model the float32 table alone was 113 MB of a 238 MB int8 program).
A lookup reads one row per token, so this is about size, not speed. Tables of
nn.Embedding subclasses (Gemma's scaled embedding) are left as they are: their forward
does more than a lookup.

QUANTIZERS, what `quantize="int8"` / `"int4"` mean to pteforge.llm: the linear layers as
named and the embedding tables in int8.

The quantized module is what the exporter's conformance check compares against: the
.pte is proven equal to the quantized eager module, and how far quantization moves the
outputs from float32 is a separate, model-level question (a benchmark's, not export's).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

QUANTIZATIONS = ("none", "int8", "int4")
GROUP_SIZE = 32


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


def int4_linears(module: nn.Module, keep: Callable[[nn.Module, str], bool] | None = None) -> nn.Module:
    """Quantizes the nn.Linear layers of `module` in place to 4-bit groupwise weights
    with dynamic int8 activations (see the module docstring); layers whose input size is
    not a multiple of GROUP_SIZE get int8_linears' per-channel int8 weights instead.
    `keep(layer, name)` returning True leaves a layer in float32. Returns `module`."""
    from torchao.quantization.granularity import PerGroup
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig, quantize_

    def grouped(layer: nn.Module, name: str) -> bool:
        return (isinstance(layer, nn.Linear) and layer.in_features % GROUP_SIZE == 0
                and not (keep and keep(layer, name)))

    config = Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(GROUP_SIZE))
    quantize_(module, config, filter_fn=grouped)
    # XNNPACK keeps groupwise scales in bfloat16 (executorch's XNNPACK serializer
    # converts them): round them here, so that the eager module conformance compares
    # against computes what the program computes (otherwise logits differ by ~0.06 on
    # the tiny Llama and greedy tokens part).
    with torch.no_grad():
        for name, layer in module.named_modules():
            if grouped(layer, name):
                layer.weight.scale.copy_(layer.weight.scale.to(torch.bfloat16).float())
    # The others, in int8 (int8_linears also unwraps every layer's tensor subclass).
    return int8_linears(module, keep=lambda layer, name: grouped(layer, name) or bool(keep and keep(layer, name)))


class Int8Embedding(nn.Module):
    """An nn.Embedding's lookup over an int8 table with one float32 scale per row
    (symmetric: row / scale rounded to [-127, 127]). The program runs ExecuTorch's
    quantized_decomposed::embedding_byte kernel; eager PyTorch its reference
    implementation, which dequantizes the same way."""

    def __init__(self, embedding: nn.Embedding):
        super().__init__()
        table = embedding.weight.detach().float()
        scales = table.abs().amax(dim=1).clamp(min=torch.finfo(torch.float32).tiny) / 127
        self.register_buffer("weight", torch.round(table / scales[:, None]).clamp(-127, 127).to(torch.int8))
        self.register_buffer("scales", scales)
        # What models read of an nn.Embedding besides calling it (Whisper's encoder
        # takes its positions from embed_positions.num_embeddings).
        self.num_embeddings = embedding.num_embeddings
        self.embedding_dim = embedding.embedding_dim
        self.padding_idx = embedding.padding_idx

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return torch.ops.quantized_decomposed.embedding_byte.default(self.weight, self.scales, None, -127, 127, indices)


def int8_embeddings(module: nn.Module) -> nn.Module:
    """Replaces every nn.Embedding in `module` (not its subclasses) by an Int8Embedding,
    in place; returns `module`."""
    # Registers the quantized_decomposed operators (and their eager implementations).
    import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401

    for child in list(module.modules()):
        for attribute, embedding in list(child.named_children()):
            if type(embedding) is nn.Embedding:
                setattr(child, attribute, Int8Embedding(embedding))
    return module


QUANTIZERS = {
    "int8": lambda module: int8_embeddings(int8_linears(module)),
    "int4": lambda module: int8_embeddings(int4_linears(module)),
}
