"""Silero VAD with int8 weights, for the portable and quantized kernels of a microcontroller.

The weight matrices are stored as int8 with a float32 scale per row and a float32
factor per column (quantize_rows), and every product with them is ExecuTorch's
`quantized_decomposed::mixed_linear` (float input times int8 weight, scaled per row,
accumulated in float) on the input multiplied by the column factors: the weights are
never expanded to float32, so the program needs no float copy of them in RAM. Two
encoder layers stay float32 (FLOAT_ENCODER_LAYERS: the measurements that chose them
are there). The convolutions become such products by laying out their inputs as columns
(time-major, so the STFT's frames and each convolution's receptive fields are slices
of the signal):

    STFT         frames [4, filter_length] x basis [2 * cutoff, filter_length]
    encoder i    columns [T_out, 3 * C_in] x weight [C_out, 3 * C_in]
    LSTM cell    x [1, 128] x W_ih [512, 128]  +  h [1, 128] x W_hh [512, 128]  (+ biases)
    decoder      relu(h) [1, 128] x w [1, 128]  (+ bias), sigmoid

Biases stay float32. The arithmetic otherwise is the float model's (model.py); how far
the probabilities move from float32 is measured by the tests and the benchmark, not
hidden by the export's conformance check, which compares the program with this
module (the same int8 weights and the same kernel).
"""

from __future__ import annotations

import functools

import torch
from torch import nn
from torch.nn import functional as F

from models.silero_vad import model as float_model


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


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """int8 weights [p, n], float32 row scales [p] and column factors [n] such that
    weight ~= int8 * scales[:, None] * columns[None, :].

    Each column is first divided by its largest |w| ("equalized"), then each row is
    quantized symmetrically (its largest value maps to 127). Without the column step
    one scale per row lumps inputs of very different weight magnitudes (the STFT bins,
    the LSTM's inputs) and the small weights round to zero: on speech, every layer in
    int8 then moved a probability by up to 0.67 and changed a segment, against 0.11.
    (Scales per group of a row, which mixed_linear also takes, log an error on every
    call in ExecuTorch 1.5: its argument check tests for rank 1 before rank 2.)
    """
    weight = weight.detach().float()
    tiny = torch.finfo(torch.float32).tiny
    columns = weight.abs().amax(dim=0).clamp(min=tiny)
    equalized = weight / columns
    scales = equalized.abs().amax(dim=1).clamp(min=tiny) / 127
    rows = torch.round(equalized / scales[:, None]).clamp(-127, 127).to(torch.int8)
    return rows, scales, columns


class Int8Linear(nn.Module):
    """x [m, n] times an int8 [p, n] weight (quantize_rows), plus an optional float
    bias: mixed_linear(x * columns, int8, scales)."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None):
        super().__init__()
        rows, scales, columns = quantize_rows(weight)
        self.register_buffer("weight", rows)
        self.register_buffer("scales", scales)
        self.register_buffer("columns", columns)
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.quantized_decomposed.mixed_linear(x * self.columns, self.weight, self.scales, None)
        return y if self.bias is None else y + self.bias


class FloatLinear(nn.Module):
    """The same product with a float32 weight (layers too sensitive for int8)."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor):
        super().__init__()
        self.weight = nn.Parameter(weight.detach().contiguous().clone(), requires_grad=False)
        self.bias = nn.Parameter(bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)


class Int8RateModel(nn.Module):
    """RateModel (model.py) with int8 weights, computed as column products (see the
    module docstring). Same interface: (x, h, c) -> (probability [1, 1], h, c)."""

    def __init__(self, rate_model: float_model.RateModel):
        super().__init__()
        _mixed_linear_kernels()
        self.context = rate_model.context
        self.filter_length = rate_model.filter_length
        self.hop = rate_model.hop
        self.cutoff = rate_model.cutoff
        self.stft = Int8Linear(rate_model.basis.squeeze(1))
        # [C_out, C_in, 3] -> [C_out, 3 * C_in], matching columns laid out time-major.
        self.encoder = nn.ModuleList([
            (FloatLinear if i in FLOAT_ENCODER_LAYERS else Int8Linear)(
                weight.permute(0, 2, 1).reshape(weight.shape[0], -1), bias)
            for i, (weight, bias) in enumerate(zip(rate_model.encoder_weights, rate_model.encoder_biases))
        ])
        self.strides = float_model.ENCODER_STRIDES
        rnn = rate_model.rnn
        self.input_gates = Int8Linear(rnn.weight_ih, rnn.bias_ih)
        self.hidden_gates = Int8Linear(rnn.weight_hh, rnn.bias_hh)
        self.decoder = Int8Linear(rate_model.decoder_weight.squeeze(-1), rate_model.decoder_bias)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """STFT magnitude, time-major: x [1, context + chunk] -> [frames, cutoff]."""
        padded = float_model.reflect_right(x, self.context)[0]
        frames = (padded.shape[0] - self.filter_length) // self.hop + 1
        spectrum = self.stft(torch.stack(
            [padded[i * self.hop:i * self.hop + self.filter_length] for i in range(frames)]))
        real = spectrum[:, :self.cutoff]
        imaginary = spectrum[:, self.cutoff:]
        return torch.sqrt(torch.pow(real, 2) + torch.pow(imaginary, 2))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Four conv (k=3, padding 1) + ReLU as column products: [4, cutoff] -> [1, 128]."""
        for layer, stride in zip(self.encoder, self.strides):
            padded = F.pad(x, (0, 0, 1, 1))  # one zero time step on each side
            steps = (padded.shape[0] - 3) // stride + 1
            columns = torch.stack([padded[t * stride:t * stride + 3].reshape(-1) for t in range(steps)])
            x = F.relu(layer(columns))
        return x

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        gates = self.input_gates(self.encode(self.features(x))) + self.hidden_gates(h)
        i, f, g, o = gates.chunk(4, dim=1)  # LSTMCell's gate order
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        # One time step: the float model's mean over time is the value itself.
        return torch.sigmoid(self.decoder(F.relu(h))), h, c


def quantize(module: float_model.SileroVad) -> float_model.SileroVad:
    """`module` with every rate's network replaced by its int8 version (in place);
    its state is unchanged. Returns `module`."""
    for rate, rate_model in list(module.models.items()):
        module.models[rate] = Int8RateModel(rate_model)
    return module
