"""Silero VAD's network as matrix products, for the portable kernels (microcontrollers).

ExecuTorch's portable convolution computes two 4-D linear indices for every
multiply-accumulate: on the Cortex-M55 a 16 kHz chunk took 22.7 M instructions
(qemu -icount), about 33 per multiply-accumulate. Its matrix product (addmm, on weights
the exporter stores transposed) is a plain triple loop. ColumnRateModel computes what
model.RateModel computes with products only, laying out each convolution's input as
columns (time-major, so the STFT's frames and each convolution's receptive fields are
slices of the signal):

    STFT         frames [4, filter_length] x basis [2 * cutoff, filter_length]
    encoder i    columns [T_out, 3 * C_in] x weight [C_out, 3 * C_in]    (+ bias, ReLU)
    LSTM cell    h [1, 128] x W_hh [512, 128] + x [1, 128] x W_ih [512, 128]  (+ biases)
    decoder      relu(h) [1, 128] x w [1, 128]  (+ bias), sigmoid

The sums run in another order than the convolutions', so the probabilities differ from
the jit's by float rounding (tests bound it); model.RateModel stays the exact one.
Each product is a layer made by a factory, so int8.py can give some of them int8
weights.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn
from torch.nn import functional as F

from models.silero_vad import model

# (name, weight [out, in], bias or None) -> the layer computing x [m, in] -> [m, out].
LinearFactory = Callable[[str, torch.Tensor, "torch.Tensor | None"], nn.Module]


class FloatLinear(nn.Module):
    """x [m, n] times a float32 weight [p, n]^T, plus an optional bias."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None):
        super().__init__()
        self.weight = nn.Parameter(weight.detach().contiguous().clone(), requires_grad=False)
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)


def float_layers(name: str, weight: torch.Tensor, bias: torch.Tensor | None) -> nn.Module:
    """Every layer float32."""
    del name
    return FloatLinear(weight, bias)


class ColumnRateModel(nn.Module):
    """model.RateModel as products (see the module docstring). Same interface:
    (x [1, context + chunk], h, c) -> (probability [1, 1], h, c).

    Args:
      rate_model: the network to compute (its weights are copied).
      linear: makes each product layer, by name: "stft", "encoder.0".."encoder.3",
        "input_gates", "hidden_gates", "decoder".
    """

    def __init__(self, rate_model: model.RateModel, linear: LinearFactory = float_layers):
        super().__init__()
        self.context = rate_model.context
        self.filter_length = rate_model.filter_length
        self.hop = rate_model.hop
        self.cutoff = rate_model.cutoff
        self.stft = linear("stft", rate_model.basis.squeeze(1), None)
        # [C_out, C_in, 3] -> [C_out, 3 * C_in], matching columns laid out time-major.
        self.encoder = nn.ModuleList([
            linear(f"encoder.{i}", weight.permute(0, 2, 1).reshape(weight.shape[0], -1), bias)
            for i, (weight, bias) in enumerate(zip(rate_model.encoder_weights, rate_model.encoder_biases))
        ])
        self.strides = model.ENCODER_STRIDES
        self.input_gates = linear("input_gates", rate_model.weight_ih, rate_model.bias_ih)
        self.hidden_gates = linear("hidden_gates", rate_model.weight_hh, rate_model.bias_hh)
        self.decoder = linear("decoder", rate_model.decoder_weight.squeeze(-1), rate_model.decoder_bias)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """STFT magnitude, time-major: x [1, context + chunk] -> [frames, cutoff]."""
        padded = model.reflect_right(x, self.context)[0]
        frames = (padded.shape[0] - self.filter_length) // self.hop + 1
        spectrum = self.stft(torch.stack(
            [padded[i * self.hop:i * self.hop + self.filter_length] for i in range(frames)]))
        real = spectrum[:, :self.cutoff]
        imaginary = spectrum[:, self.cutoff:]
        # Squares as products: ExecuTorch's portable pow calls powf per element (85 K
        # instructions a chunk on the Cortex-M55, more than a product kernel's layer).
        return torch.sqrt(real * real + imaginary * imaginary)

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Four conv (k=3, padding 1) + ReLU as column products: [4, cutoff] -> [1, 128]."""
        for layer, stride in zip(self.encoder, self.strides):
            padded = F.pad(x, (0, 0, 1, 1))  # one zero time step on each side
            steps = (padded.shape[0] - 3) // stride + 1
            columns = torch.stack([padded[t * stride:t * stride + 3].reshape(-1) for t in range(steps)])
            x = F.relu(layer(columns))
        return x

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # The LSTM cell as model.RateModel.lstm_cell computes it.
        gates = self.hidden_gates(h) + self.input_gates(self.encode(self.features(x)))
        i, f, g, o = (gates[:, k * model.HIDDEN:(k + 1) * model.HIDDEN] for k in range(4))
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return torch.sigmoid(self.decoder(F.relu(h))), h, c


def as_columns(module: model.SileroVad, linear: LinearFactory = float_layers) -> model.SileroVad:
    """`module` with every rate's network computed as products (in place); its state
    is unchanged. Returns `module`."""
    for rate, rate_model in list(module.models.items()):
        module.models[rate] = ColumnRateModel(rate_model, linear)
    return module
