"""pteforge's own operators for CMSIS-NN: their schemas and their eager definitions.

Each operator is defined here once, as torch.library ops in the `pteforge` namespace:
a functional form (what torch.export captures and eager PyTorch runs) and the `.out`
form ExecuTorch's runtime calls. The eager implementation is the reference: the C++
reference kernels (cc/kernels) compute the same thing for x86_64 and aarch64, and the
exporter's conformance check compares them call by call; on the Cortex-M55 the same
operators run on CMSIS-NN's Helium kernels.

    linear(input [..., k], weight [n, k], bias [n]?, relu) -> [..., n]          float32
        input @ weight.T + bias, then ReLU if `relu`.
    linear_dq8(input [..., k], weight int8 [n, k], weight_scales [n], input_scales [k]?,
               bias [n]?, relu) -> [..., n]                                     float32
        Each row r of the input, first multiplied by input_scales if given (x =
        input[r] * input_scales: a per-feature factor that evens out the columns of
        the weight, as SmoothQuant does, and costs nothing more here), is quantized on
        the fly (dynamic quantization), with L = 127:
            amax = max |x|; inv = L / amax (0 when amax is 0)
            q = clamp(round_half_to_even(x * inv), -L, L)
            acc = q . weight[j] over k, exactly (an integer)
            out[r, j] = float(acc) * (amax / L) * weight_scales[j] + bias[j]
        every float operation in float32, in that order, then ReLU if `relu`. The
        C++ kernels compute exactly these operations (no fused multiply-add), so
        they give the same bits as the eager definition.
    linear_dq16(...)  the same with int16 activations: L = 32767. 256 times finer
        activations for the same int8 weights (what a model too sensitive for int8
        activations needs, e.g. Silero VAD), at about the same speed on Helium. Its
        weight may also be int16 (twice the bytes of int8, half of float32's), for the
        layers of a model too sensitive for int8 weights: the sums are exact either way.

Import this module (pteforge.cortex_m imports it) before tracing or running a module
that calls them.
"""

from __future__ import annotations

import torch

from pteforge.support import custom_ops

NAMESPACE = "pteforge"

_library = torch.library.Library(NAMESPACE, "DEF")

_SCHEMAS = {
    "linear": "linear(Tensor input, Tensor weight, Tensor? bias, bool relu) -> Tensor",
    "linear_dq8": ("linear_dq8(Tensor input, Tensor weight, Tensor weight_scales, Tensor? input_scales, Tensor? bias, "
                   "bool relu) -> Tensor"),
    "linear_dq16": ("linear_dq16(Tensor input, Tensor weight, Tensor weight_scales, Tensor? input_scales, Tensor? bias, "
                    "bool relu) -> Tensor"),
}
# The largest activation magnitude of each dynamically quantized linear, by bits.
ACTIVATION_LEVELS = {8: 127, 16: 32767}
# The operators as ExecuTorch names them in a program (namespace::name.overload).
PROGRAM_OPERATORS = tuple(f"{NAMESPACE}::{name}.out" for name in sorted(_SCHEMAS))


def _output_shape(input: torch.Tensor, weight: torch.Tensor) -> tuple[int, ...]:
    return (*input.shape[:-1], weight.shape[0])


def _relu(value: torch.Tensor, relu: bool) -> torch.Tensor:
    return torch.relu(value) if relu else value


def _check_float_input(name: str, input: torch.Tensor, weight: torch.Tensor) -> None:
    torch._check(input.dtype == torch.float32, lambda: f"pteforge::{name}: input must be float32, got {input.dtype}")
    torch._check(input.dim() >= 1 and weight.dim() == 2,
                 lambda: f"pteforge::{name}: input [..., k] and weight [n, k], got {list(input.shape)} and {list(weight.shape)}")
    torch._check(input.shape[-1] == weight.shape[1],
                 lambda: f"pteforge::{name}: input has {input.shape[-1]} features, weight {weight.shape[1]}")


def linear_reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, relu: bool) -> torch.Tensor:
    """pteforge::linear in eager PyTorch."""
    _check_float_input("linear", input, weight)
    return _relu(torch.nn.functional.linear(input, weight, bias), relu)


def quantize_rows(rows: torch.Tensor, bits: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[r, k] float32 -> (integers [r, k] as int64, float32 scale [r]), as
    linear_dq<bits> quantizes its input."""
    levels = float(ACTIVATION_LEVELS[bits])
    amax = rows.abs().amax(dim=1)
    inverse = torch.where(amax > 0, torch.full_like(amax, levels) / amax, torch.zeros_like(amax))
    quantized = torch.round(rows * inverse[:, None]).clamp(-levels, levels).to(torch.int64)
    return quantized, amax / levels


def _linear_dq(bits: int, input: torch.Tensor, weight: torch.Tensor, weight_scales: torch.Tensor,
               input_scales: torch.Tensor | None, bias: torch.Tensor | None, relu: bool) -> torch.Tensor:
    name = f"linear_dq{bits}"
    _check_float_input(name, input, weight)
    weight_types = (torch.int8, torch.int16) if bits == 16 else (torch.int8,)
    torch._check(weight.dtype in weight_types,
                 lambda: f"pteforge::{name}: weight must be {' or '.join(map(str, weight_types))}, got {weight.dtype}")
    rows = input.reshape(-1, input.shape[-1])
    if input_scales is not None:
        rows = rows * input_scales
    quantized, scales = quantize_rows(rows, bits)
    # Exact integer sums (int64), then one rounding to float32, as the kernels do.
    sums = (quantized @ weight.to(torch.int64).t()).to(torch.float32)
    out = sums * scales[:, None] * weight_scales[None, :]
    if bias is not None:
        out = out + bias
    return _relu(out, relu).reshape(_output_shape(input, weight))


def linear_dq8_reference(input, weight, weight_scales, input_scales, bias, relu) -> torch.Tensor:
    """pteforge::linear_dq8 in eager PyTorch (see the module docstring)."""
    return _linear_dq(8, input, weight, weight_scales, input_scales, bias, relu)


def linear_dq16_reference(input, weight, weight_scales, input_scales, bias, relu) -> torch.Tensor:
    """pteforge::linear_dq16 in eager PyTorch (see the module docstring)."""
    return _linear_dq(16, input, weight, weight_scales, input_scales, bias, relu)


def _fake(input: torch.Tensor, weight: torch.Tensor, *rest) -> torch.Tensor:
    return input.new_empty(_output_shape(input, weight))


for _name, _reference in (("linear", linear_reference), ("linear_dq8", linear_dq8_reference),
                          ("linear_dq16", linear_dq16_reference)):
    custom_ops.define(_library, _name, _SCHEMAS[_name], _reference, _fake)
