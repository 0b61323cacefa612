"""Silero VAD v6 as a plain nn.Module with its stream state inside: what pteforge exports.

The weights are the jit's (`silero_vad.jit`, what `load_silero_vad()` loads), read by
state_dict name; the arithmetic is the jit's, op for op, so that the eager module equals
`model(chunk, sr)` of silero's package exactly (model_test.py checks max diff 0.0).

Per chunk (16 kHz: 512 new samples; 8 kHz: 256), for one stream:

    x = [context (the previous 64 | 32 samples), chunk]
    reflect-pad 64 | 32 on the right; STFT as conv1d with forward_basis_buffer, stride
    128 | 64 (4 frames); magnitude of bins 0..cutoff-1 (real) vs cutoff.. (imaginary)
    four conv1d (k=3, pad 1, strides 1, 2, 2, 1) + ReLU        -> [1, 128, 1]
    LSTMCell(128, 128) on (h, c); ReLU; conv1d(128, 1, 1); sigmoid; mean over time (of
    one step)
    the context becomes the last 64 | 32 samples of x

The stream state is h, c (one pair for both rates, as the jit keeps one `_state`), the
context per rate and, when both rates are exported, the rate of the last call: the jit
starts from a zero state when a call's rate differs from the previous call's
(`reset_states()` in its forward), and so does this module.
"""

from __future__ import annotations

from typing import Mapping

import torch
from torch import nn
from torch.nn import functional as F

RATES = (16000, 8000)
# Samples per chunk, and samples of context carried to the next chunk (the jit's
# `context_size_samples`), per rate.
CHUNK_SAMPLES = {16000: 512, 8000: 256}
CONTEXT_SAMPLES = {16000: 64, 8000: 32}
HIDDEN = 128

# The jit's state_dict prefix of each rate's submodel.
_PREFIX = {16000: "_model.", 8000: "_model_8k."}
# The encoder's conv1d strides (kernel 3, padding 1 each).
ENCODER_STRIDES = (1, 2, 2, 1)


def reflect_right(x: torch.Tensor, count: int) -> torch.Tensor:
    """x [1, n] with its last `count` samples mirrored after it, not repeating the last
    one: ReflectionPad1d((0, count)), the jit's padding. Written as a flip, because
    torch.export decomposes the padding into index arithmetic (arange, abs, index)."""
    return torch.cat([x, torch.flip(x[:, -count - 1:-1], dims=[1])], dim=1)


def method_name(rate: int) -> str:
    """The program's entry point for one rate: process_16k, process_8k."""
    return f"process_{rate // 1000}k"


class RateModel(nn.Module):
    """One rate's network (the jit's `_model` or `_model_8k`), stateless: chunk with
    context in, probability and the LSTM's new (h, c) out."""

    def __init__(self, weights: Mapping[str, torch.Tensor], rate: int):
        super().__init__()
        prefix = _PREFIX[rate]

        def weight(name: str) -> nn.Parameter:
            # A fresh dense copy: the jit's STFT basis has stride 0 on its size-1
            # dimension, which ExecuTorch refuses ("0 in strides is not supported").
            source = weights[prefix + name].detach()
            return nn.Parameter(torch.zeros(source.shape, dtype=source.dtype).copy_(source), requires_grad=False)

        self.rate = rate
        self.context = CONTEXT_SAMPLES[rate]
        self.basis = weight("stft.forward_basis_buffer")  # [2 * cutoff, 1, filter_length]
        self.filter_length = self.basis.shape[-1]
        self.hop = self.filter_length // 2
        self.cutoff = self.filter_length // 2 + 1
        self.encoder_weights = nn.ParameterList(
            [weight(f"encoder.{i}.reparam_conv.weight") for i in range(len(ENCODER_STRIDES))])
        self.encoder_biases = nn.ParameterList(
            [weight(f"encoder.{i}.reparam_conv.bias") for i in range(len(ENCODER_STRIDES))])
        self.weight_ih = weight("decoder.rnn.weight_ih")  # LSTMCell(128, 128): gates i, f, g, o
        self.weight_hh = weight("decoder.rnn.weight_hh")
        self.bias_ih = weight("decoder.rnn.bias_ih")
        self.bias_hh = weight("decoder.rnn.bias_hh")
        self.decoder_weight = weight("decoder.decoder.2.weight")  # [1, 128, 1]
        self.decoder_bias = weight("decoder.decoder.2.bias")

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The STFT magnitude of x [1, context + chunk]: [1, cutoff, frames]."""
        padded = reflect_right(x, self.context).unsqueeze(1)
        spectrum = F.conv1d(padded, self.basis, None, stride=self.hop)
        real = spectrum[:, :self.cutoff, :]
        imaginary = spectrum[:, self.cutoff:, :]
        return torch.sqrt(torch.pow(real, 2) + torch.pow(imaginary, 2))

    def encode(self, features: torch.Tensor) -> torch.Tensor:
        """The four conv + ReLU blocks: [1, cutoff, 4] -> [1, 128] (one time step)."""
        x = features
        for weight, bias, stride in zip(self.encoder_weights, self.encoder_biases, ENCODER_STRIDES):
            x = F.relu(F.conv1d(x, weight, bias, stride=stride, padding=1))
        return x.squeeze(-1)

    def lstm_cell(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """nn.LSTMCell as ATen computes it (aten/src/ATen/native/RNN.cpp, LSTMCell):
        the same operations in the same order, so the result is bit for bit the same.
        Written out because torch.export turns the cell's chunk(4) into
        split_with_sizes_copy, a 68 KB kernel on the Cortex-M55, where slices reuse
        slice_copy, which the STFT needs anyway."""
        gates = F.linear(h, self.weight_hh, self.bias_hh) + F.linear(x, self.weight_ih, self.bias_ih)
        i, f, g, o = (gates[:, k * HIDDEN:(k + 1) * HIDDEN] for k in range(4))
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c

    def decode(self, h: torch.Tensor) -> torch.Tensor:
        """ReLU, conv1d(128, 1, 1), sigmoid: [1, 128] -> [1, 1]. (The jit then takes the
        mean over time; there is one time step, whose mean is itself exactly, and
        mean.out is a 170 KB kernel on the Cortex-M55: a reshape instead.)"""
        x = F.conv1d(F.relu(h.unsqueeze(-1)), self.decoder_weight, self.decoder_bias)
        return torch.sigmoid(x).reshape(1, 1)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h, c = self.lstm_cell(self.encode(self.features(x)), h, c)
        return self.decode(h), h, c


class SileroVad(nn.Module):
    """Silero VAD for one stream, its state inside. Methods: process_16k(chunk [1, 512])
    and process_8k(chunk [1, 256]) -> probability [1, 1], for the rates given.

    Args:
      weights: the jit's state_dict.
      rates: the rates to build (16000, 8000 or both).
    """

    def __init__(self, weights: Mapping[str, torch.Tensor], rates: tuple[int, ...] = RATES):
        super().__init__()
        unknown = [rate for rate in rates if rate not in RATES]
        if unknown or not rates:
            raise ValueError(f"rates {rates}: Silero VAD has models for {RATES[0]} and {RATES[1]} Hz")
        self.rates = tuple(rates)
        self.models = nn.ModuleDict({str(rate): RateModel(weights, rate) for rate in self.rates})
        self.register_buffer("h", torch.zeros(1, HIDDEN))
        self.register_buffer("c", torch.zeros(1, HIDDEN))
        for rate in self.rates:
            self.register_buffer(f"context_{rate // 1000}k", torch.zeros(1, CONTEXT_SAMPLES[rate]))
        # Only needed when a stream can switch rates, i.e. with both rates in one program.
        self.tracks_rate = len(self.rates) > 1
        if self.tracks_rate:
            self.register_buffer("last_rate", torch.zeros(1))

    def state_names(self) -> list[str]:
        """The stream's state buffers (all shared by the methods)."""
        names = ["h", "c"] + [f"context_{rate // 1000}k" for rate in self.rates]
        return names + (["last_rate"] if self.tracks_rate else [])

    def process_16k(self, chunk: torch.Tensor) -> torch.Tensor:
        """The speech probability of 512 new samples at 16 kHz, [1, 512] -> [1, 1]."""
        return self._process(16000, chunk)

    def process_8k(self, chunk: torch.Tensor) -> torch.Tensor:
        """The speech probability of 256 new samples at 8 kHz, [1, 256] -> [1, 1]."""
        return self._process(8000, chunk)

    def reset_states(self) -> None:
        """As the jit's reset_states(): a fresh stream (the program's reset_state)."""
        for name in self.state_names():
            getattr(self, name).zero_()

    def _process(self, rate: int, chunk: torch.Tensor) -> torch.Tensor:
        context = getattr(self, f"context_{rate // 1000}k")
        h, c = self.h, self.c
        if self.tracks_rate:
            # The jit resets its state when the rate changes (its context's size differs
            # per rate, so it restarts from zeros too).
            fresh = self.last_rate != rate
            h = torch.where(fresh, torch.zeros_like(h), h)
            c = torch.where(fresh, torch.zeros_like(c), c)
            context = torch.where(fresh, torch.zeros_like(context), context)
        x = torch.cat([context, chunk], dim=1)
        probability, h, c = self.models[str(rate)](x, h, c)
        self.h.copy_(h)
        self.c.copy_(c)
        getattr(self, f"context_{rate // 1000}k").copy_(x[:, -CONTEXT_SAMPLES[rate]:])
        if self.tracks_rate:
            self.last_rate.fill_(rate)
        return probability


def load_jit_weights(path: str) -> dict[str, torch.Tensor]:
    """The jit's state_dict (CPU tensors)."""
    jit = torch.jit.load(path, map_location="cpu")
    return {name: value.detach().clone() for name, value in jit.state_dict().items()}
