"""Silero VAD with int8 weights, for a microcontroller.

The network as products (columns.py), where the weight matrices are stored as int8 with
a float32 scale per row and a float32 factor per column (quantize_rows); every product
with them takes the input multiplied by the column factors. Two kinds of product
(`activations`):

  "float"    ExecuTorch's `quantized_decomposed::mixed_linear` (float input times int8
             weight, scaled per row, accumulated in float), on the portable and
             quantized kernels; two encoder layers stay float32
             (FLOAT_ENCODER_LAYERS: the measurements that chose them are there);
  "int16"    pteforge.linear_dq16 (each input row quantized to int16 on the fly, exact
             integer sums, backend="cortex_m": Helium on the Cortex-M55). int8
             activations (linear_dq8) moved a probability by up to 0.15 and 3 of the
             28 segment boundaries of the test speech even with the two sensitive
             layers in float32; int16 ones, like float activations, none. The STFT is
             computed by an FFT on the device (columns.FftSpectrum; no 66 KB basis),
             the LSTM cell by pteforge.lstm_cell, and three encoder layers have int16 weights (INT16_WEIGHT_LAYERS: the
             measurements are there) where the float activations keep two in float32:
             a smaller program, closer to the float32 model.

Either way the weights are never expanded to float32, so the program needs no float copy
of them in RAM; biases stay float32.

How far int8 moves the probabilities from float32 is measured by the tests and the
benchmark, not hidden by the export's conformance check, which compares the program
with this module (the same int8 weights and the same kernel).
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from models.silero_vad import columns
from models.silero_vad import model as float_model

# How the int8 products take their input (the module docstring).
ACTIVATIONS = ("float", "int16")


@functools.cache
def _mixed_linear_kernels() -> torch.library.Library:
    """Gives `quantized_decomposed::mixed_linear` a CPU kernel for eager runs and a Meta
    kernel (its output's shape) for torch.export.

    ExecuTorch's Python package defines the operator but implements only its out
    variant, in its ahead-of-time kernel library: the eager module calls that same
    kernel, so eager and the program compute the same sums. The returned library keeps
    the registrations alive (cached: registered once per process).
    """
    import executorch.kernels.quantized  # noqa: F401  loads the ahead-of-time kernels
    from executorch.exir.passes import _quant_patterns_and_replacements  # noqa: F401  defines the operator

    def output(x, weight, dtype):
        return x.new_empty((x.shape[0], weight.shape[0]), dtype=dtype or x.dtype)

    def cpu(x, weight, scales, zero_points=None, dtype=None):
        return torch.ops.quantized_decomposed.mixed_linear.out(
            x, weight, scales, zero_points, dtype, out=output(x, weight, dtype))

    def meta(x, weight, scales, zero_points=None, dtype=None):
        return output(x, weight, dtype)

    library = torch.library.Library("quantized_decomposed", "IMPL")
    library.impl("mixed_linear", cpu, "CPU")
    library.impl("mixed_linear", meta, "Meta")
    return library


# Encoder layers kept in float32 (1 and 2: 147 KB). Measured on the 16 kHz test audio
# (tests/vad: four files of espeak-ng speech, 1,400 chunks) against the float model,
# int8 as below: with only layer 2 in float32 the largest change of a probability was
# 0.066 and one segment started a chunk earlier (an onset at 0.477 went to 0.507, past
# the 0.5 threshold); with layers 1 and 2, 0.072 and every segment the same; every
# layer in int8, 0.114. Layer 2 alone in int8 moves a probability by up to 0.128, more
# than any other layer.
FLOAT_ENCODER_LAYERS = (1, 2)

# Encoder layers with int16 weights on int16 activations (1, 2, 3: 120 KB; in int8 60
# KB). Measured with the STFT computed exactly (columns.FftSpectrum), on the 16 kHz test
# audio against the float32 columns model: with every weight int16 a probability moves
# by at most 0.002; one layer's weights in int8 (the others int16) move one by up to
# 0.090 (encoder layer 2), 0.064 (1), 0.029 (0), 0.021 (3), 0.015 (input gates), 0.011
# (hidden gates), 0.002 (decoder). Taking layers to int16 in the order of that change per
# byte: with 2 and 1, an onset of long_16k.wav at 0.511 (float32) went to 0.497 and a
# segment started a chunk late; with 3 too, 0.504, every segment silero's, the largest
# change 0.031 (0.071 with the stored int8 basis and layers 1 and 2 in float32).
INT16_WEIGHT_LAYERS = (1, 2, 3)


def quantize_rows(weight: torch.Tensor, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """int8 weights [p, n] (bits=16: int16), float32 row scales [p] and column factors
    [n] such that weight ~= int8 * scales[:, None] * columns[None, :].

    Each column is first divided by its largest |w| ("equalized"), then each row is
    quantized symmetrically (its largest value maps to 127, 32767). Without the column step
    one scale per row lumps inputs of very different weight magnitudes (the STFT bins,
    the LSTM's inputs) and the small weights round to zero: on speech, every layer in
    int8 then moved a probability by up to 0.67 and changed a segment, against 0.11.
    (Scales per group of a row, which mixed_linear also takes, log an error on every
    call in ExecuTorch 1.5: its argument check tests for rank 1 before rank 2.)
    """
    dtype = {8: torch.int8, 16: torch.int16}[bits]
    levels = torch.iinfo(dtype).max
    weight = weight.detach().float()
    tiny = torch.finfo(torch.float32).tiny
    columns = weight.abs().amax(dim=0).clamp(min=tiny)
    equalized = weight / columns
    scales = equalized.abs().amax(dim=1).clamp(min=tiny) / levels
    rows = torch.round(equalized / scales[:, None]).clamp(-levels, levels).to(dtype)
    return rows, scales, columns


class _QuantizedRows(nn.Module):
    """An int8 (or int16) [p, n] weight (quantize_rows: weight, scales, column factors)
    and an optional float bias, for the two linear layers below."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, bits: int = 8):
        super().__init__()
        rows, scales, factors = quantize_rows(weight, bits)
        self.register_buffer("weight", rows)
        self.register_buffer("scales", scales)
        self.register_buffer("factors", factors)
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone(), requires_grad=False)


class Int8Linear(_QuantizedRows):
    """x [m, n] times an int8 [p, n] weight (quantize_rows), plus an optional float
    bias: mixed_linear(x * factors, int8, scales)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.quantized_decomposed.mixed_linear(x * self.factors, self.weight, self.scales, None)
        return y if self.bias is None else y + self.bias


class DynamicInt8Linear(_QuantizedRows):
    """x [m, n] times an int8 (bits=16: int16) [p, n] weight (quantize_rows), plus an
    optional float bias: pteforge.linear_dq16 with the column factors as its input
    scales (the operator multiplies them in as it quantizes the row, instead of a
    broadcast multiplication kernel and its output buffer per layer)."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, bits: int = 8):
        super().__init__(weight, bias, bits)
        from pteforge.cortex_m import ops  # noqa: F401  defines torch.ops.pteforge

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.pteforge.linear_dq16(x, self.weight, self.scales, self.factors, self.bias, False)


def quantize(module: float_model.SileroVad, activations: str = "float") -> float_model.SileroVad:
    """`module` with every rate's network as products with int8 weights (in place),
    taking their input as `activations` says (ACTIVATIONS); its state is unchanged.
    Returns `module`."""
    if activations not in ACTIVATIONS:
        raise ValueError(f"activations={activations!r}: expected one of {', '.join(ACTIVATIONS)}")

    def layer(name: str, weight: torch.Tensor, bias: torch.Tensor | None) -> nn.Module:
        if activations == "int16":
            wide = name in {f"encoder.{i}" for i in INT16_WEIGHT_LAYERS}
            return DynamicInt8Linear(weight, bias, 16 if wide else 8)
        if name in {f"encoder.{i}" for i in FLOAT_ENCODER_LAYERS}:
            return columns.FloatLinear(weight, bias)
        _mixed_linear_kernels()
        return Int8Linear(weight, bias)

    return columns.as_columns(module, layer, pteforge_ops=activations == "int16")
