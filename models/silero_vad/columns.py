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
weights. With pteforge's operators (backend="cortex_m"), the STFT is computed without
the basis (FftSpectrum: an FFT of each frame, pteforge.stft_magnitude), from the window
the basis is made of, and the LSTM cell after its products is pteforge.lstm_cell.
"""

from __future__ import annotations

import math
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


class BasisSpectrum(nn.Module):
    """The STFT magnitude as the jit computes it, as a product: the padded signal's [1,
    n] frames [frames, filter_length] times the basis [2 * cutoff, filter_length] (a
    layer made by `linear`, named "stft"), then sqrt(real^2 + imaginary^2): [frames,
    cutoff]."""

    def __init__(self, rate_model: model.RateModel, linear: "LinearFactory"):
        super().__init__()
        self.filter_length = rate_model.filter_length
        self.hop = rate_model.hop
        self.cutoff = rate_model.cutoff
        self.stft = linear("stft", rate_model.basis.squeeze(1), None)

    def forward(self, padded: torch.Tensor) -> torch.Tensor:
        padded = padded[0]
        frames = (padded.shape[0] - self.filter_length) // self.hop + 1
        spectrum = self.stft(torch.stack(
            [padded[i * self.hop:i * self.hop + self.filter_length] for i in range(frames)]))
        real = spectrum[:, :self.cutoff]
        imaginary = spectrum[:, self.cutoff:]
        # Squares as products: ExecuTorch's portable pow calls powf per element (85 K
        # instructions a chunk on the Cortex-M55, more than a product kernel's layer).
        return torch.sqrt(real * real + imaginary * imaginary)


# Largest |basis - window x DFT| of a basis FftSpectrum accepts: the jit's is the float32
# rounding of its window times numpy's DFT of the identity, bit for bit (tacotron2's
# STFT recipe), within 6e-8 of the exact values.
BASIS_TOLERANCE = 1e-6


def dft_basis(window: torch.Tensor) -> torch.Tensor:
    """[2 * (L / 2 + 1), L]: the real parts of e^(-2 pi i k t / L) * window[t] for k =
    0..L/2, then the imaginary parts (the layout of the jit's forward_basis_buffer)."""
    length = window.shape[0]
    k = torch.arange(length // 2 + 1, dtype=torch.float64)[:, None]
    angle = 2 * math.pi * k * torch.arange(length, dtype=torch.float64)[None, :] / length
    return torch.cat([torch.cos(angle), -torch.sin(angle)]) * window.double()


class FftSpectrum(nn.Module):
    """The STFT magnitude computed on the device, [1, n] -> [frames, cutoff]:
    pteforge.stft_magnitude (an FFT of each windowed frame, in double precision) instead
    of a product with the stored basis. The window is the basis's first row (bin 0: the window times 1); a basis
    that is not that window's DFT (BASIS_TOLERANCE) is refused."""

    def __init__(self, rate_model: model.RateModel):
        super().__init__()
        from pteforge.cortex_m import stft_op  # noqa: F401  defines torch.ops.pteforge.stft_magnitude

        basis = rate_model.basis.detach().squeeze(1)
        window = basis[0].clone()
        difference = (basis.double() - dft_basis(window)).abs().max().item()
        if difference > BASIS_TOLERANCE:
            raise ValueError(f"the STFT basis is not a windowed DFT (max difference {difference:.2e}): "
                             "it cannot be computed by an FFT")
        self.register_buffer("window", window)
        self.hop = rate_model.hop

    def forward(self, padded: torch.Tensor) -> torch.Tensor:
        spectrum = torch.ops.pteforge.stft_magnitude(padded, self.window, self.hop)
        # A view (no kernel), where squeeze(0) or a reshape would need squeeze_copy's.
        return spectrum.flatten(0, 1)


class ColumnRateModel(nn.Module):
    """model.RateModel as products (see the module docstring). Same interface:
    (x [1, context + chunk], h, c) -> (probability [1, 1], h, c).

    Args:
      rate_model: the network to compute (its weights are copied).
      linear: makes each product layer, by name: "stft", "encoder.0".."encoder.3",
        "input_gates", "hidden_gates", "decoder".
      pteforge_ops: compute the STFT with FftSpectrum (no "stft" layer) instead of
        BasisSpectrum, and the LSTM cell after its products with pteforge.lstm_cell:
        fewer, smaller kernels for a microcontroller (backend="cortex_m").
    """

    def __init__(self, rate_model: model.RateModel, linear: LinearFactory = float_layers, pteforge_ops: bool = False):
        super().__init__()
        self.context = rate_model.context
        self.pteforge_ops = pteforge_ops
        if pteforge_ops:
            from pteforge.cortex_m import lstm_op  # noqa: F401  defines torch.ops.pteforge.lstm_cell
        self.spectrum = FftSpectrum(rate_model) if pteforge_ops else BasisSpectrum(rate_model, linear)
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
        return self.spectrum(model.reflect_right(x, self.context))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Four conv (k=3, padding 1) + ReLU as column products: [4, cutoff] -> [1, 128]."""
        for layer, stride in zip(self.encoder, self.strides):
            padded = F.pad(x, (0, 0, 1, 1))  # one zero time step on each side
            steps = (padded.shape[0] - 3) // stride + 1
            columns = torch.stack([padded[t * stride:t * stride + 3].reshape(-1) for t in range(steps)])
            x = F.relu(layer(columns))
        return x

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if self.pteforge_ops:
            # The same operations in one operator (lstm_op.py), the gates' sum in the
            # other order (the same values: a sum of two floats commutes).
            h, c = torch.ops.pteforge.lstm_cell(self.input_gates(self.encode(self.features(x))), self.hidden_gates(h), c)
            return torch.sigmoid(self.decoder(F.relu(h))), h, c
        # The LSTM cell as model.RateModel.lstm_cell computes it.
        gates = self.hidden_gates(h) + self.input_gates(self.encode(self.features(x)))
        i, f, g, o = (gates[:, k * model.HIDDEN:(k + 1) * model.HIDDEN] for k in range(4))
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return torch.sigmoid(self.decoder(F.relu(h))), h, c


def as_columns(module: model.SileroVad, linear: LinearFactory = float_layers,
               pteforge_ops: bool = False) -> model.SileroVad:
    """`module` with every rate's network computed as products (in place), with
    pteforge's operators if `pteforge_ops` (ColumnRateModel); its state is unchanged.
    Returns `module`."""
    for rate, rate_model in list(module.models.items()):
        module.models[rate] = ColumnRateModel(rate_model, linear, pteforge_ops)
    return module
