"""Every pteforge operator at sizes that reach each kernel's edges, for the Cortex-M55's
CMSIS-NN and Helium kernels against eager PyTorch (tests/cortex_m/BUILD.bazel).

Rows 1 to 6 (CMSIS-NN's int8 product takes 4 rows at a time), features that are no
multiple of 4, 8 or 16 (the vector loops' tails), n not a multiple of 4 (the Helium
loop's blocks of 4 weight rows), a 600-feature int16 layer (past 516, where int32 sums
could overflow and the loop sums in int64), input scales, bias or none, ReLU or none,
and a running total kept as shared state, so the methods are stateful as pteforge's
programs are.

  float_layers(x [r, 37]) -> [r, 8]     pteforge.linear twice (ReLU fused into the first)
  lstm(x [2, 37]) -> [2, 9]             lstm_cell on two products of x (H = 9), its cell state
  int8_layers(x [r, 45]) -> [r, 11]     linear_dq8 (with input scales) then linear_dq16
  wide_int16(x [r, 600]) -> [r, 6]      linear_dq16 with k = 600
  int16_weights(x [r, 45]) -> [r, 9]    linear_dq16 with int16 weights and input scales
  spectrum(x [1, 700]) -> [1, 4, 129]   stft_magnitude (L = 256, hop 128, a tail left over)
"""

import torch
from torch import nn
from torch.export import Dim

from pteforge import MultiMethodExporter, Tolerance
from pteforge.cortex_m import lstm_op, ops, quantize, stft_op  # noqa: F401  (they define torch.ops.pteforge)

ROWS = Dim("rows", min=1, max=6)


class Operators(nn.Module):
    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(0)

        def weights(n, k):
            return torch.randn(n, k, generator=generator) / k ** 0.5

        self.first = nn.Linear(37, 13)
        self.second = nn.Linear(13, 8, bias=False)
        with torch.no_grad():
            self.first.weight.copy_(weights(13, 37))
            self.second.weight.copy_(weights(8, 13))
        self.dq8 = quantize.DynamicLinear.from_float(weights(23, 45), torch.randn(23, generator=generator), 8)
        self.register_buffer("dq8_input_scales", torch.rand(45, generator=generator) + 0.5)
        self.dq16 = quantize.DynamicLinear.from_float(weights(11, 23), None, 16)
        self.wide = quantize.DynamicLinear.from_float(weights(6, 600), torch.randn(6, generator=generator), 16)
        with torch.no_grad():
            # Not nn.Linear's initialization, which draws from the global generator: every
            # export gave other bytes (found comparing a remote build with a local one).
            self.first.bias.copy_(torch.randn(13, generator=generator) / 37 ** 0.5)
        self.register_buffer("total", torch.zeros(1))
        self.register_buffer("window", torch.rand(256, generator=generator))
        self.dq16w16 = quantize.DynamicLinear.from_float(weights(9, 45), torch.randn(9, generator=generator), 16,
                                                         weight_bits=16)
        self.register_buffer("dq16w16_input_scales", torch.rand(45, generator=generator) + 0.5)
        self.register_buffer("gates_weight", weights(72, 37))
        self.register_buffer("cell", torch.zeros(2, 9))

    def float_layers(self, x: torch.Tensor) -> torch.Tensor:
        out = self.second(torch.relu(self.first(x)))
        self.total.add_(out.sum())
        return out + self.total

    def lstm(self, x: torch.Tensor) -> torch.Tensor:
        gates = x @ self.gates_weight.t()
        hidden, cell = torch.ops.pteforge.lstm_cell(gates[:, :36], gates[:, 36:] * 3, self.cell)
        self.cell.copy_(cell)
        return hidden

    def int8_layers(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.ops.pteforge.linear_dq8(x, self.dq8.weight, self.dq8.weight_scales, self.dq8_input_scales,
                                               self.dq8.bias, True)
        out = self.dq16(hidden)
        self.total.add_(out[0, 0])  # one addition: the same bits everywhere, unlike a sum's order
        return out

    def wide_int16(self, x: torch.Tensor) -> torch.Tensor:
        return self.wide(x)

    def int16_weights(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.pteforge.linear_dq16(x, self.dq16w16.weight, self.dq16w16.weight_scales,
                                              self.dq16w16_input_scales, self.dq16w16.bias, True)

    def spectrum(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.pteforge.stft_magnitude(x, self.window, 128)


def _calls(method: str, features: int, seed: int) -> list:
    generator = torch.Generator().manual_seed(seed)
    return [(method, (torch.randn(rows, features, generator=generator) * scale,))
            for rows, scale in [(1, 1.0), (4, 0.01), (6, 30.0), (5, 1.0), (2, 1e3)]]


def make_exporter(layers: str = "float") -> MultiMethodExporter:
    """layers="float": float_layers and the LSTM cell, checked within the backend's
    tolerance (CMSIS-NN sums in another order and fuses; the cell's exp and tanh are the
    C library's, eager's PyTorch's own); "int8": the dynamically quantized ones, which must be
    exact: their sums are integers and their float steps the same operations; and the
    spectrum, whose double-precision FFT rounds to eager's float32 values."""
    exporter = MultiMethodExporter(Operators().eval(), name=f"operators_{layers}")
    if layers == "float":
        exporter.shared_state("total", "cell")
        exporter.method("float_layers", (torch.randn(3, 37),), dynamic_shapes=({0: ROWS},))
        exporter.method("lstm", (torch.randn(2, 37),))
        generator = torch.Generator().manual_seed(6)
        exporter.call_sequence(_calls("float_layers", 37, 1) +
                               [("lstm", (torch.randn(2, 37, generator=generator) * scale,)) for scale in (1, 4, 0.1)])
    else:
        exporter.shared_state("total")
        exporter.method("int8_layers", (torch.randn(3, 45),), dynamic_shapes=({0: ROWS},))
        exporter.method("wide_int16", (torch.randn(3, 600),), dynamic_shapes=({0: ROWS},))
        exporter.method("int16_weights", (torch.randn(3, 45),), dynamic_shapes=({0: ROWS},))
        exporter.method("spectrum", (torch.randn(1, 700),))
        generator = torch.Generator().manual_seed(4)
        exporter.call_sequence(_calls("int8_layers", 45, 2) + _calls("wide_int16", 600, 3) +
                               _calls("int16_weights", 45, 5) +
                               [("spectrum", (torch.randn(1, 700, generator=generator) * scale,)) for scale in (1, 1e-3)])
        exporter.conformance_tolerance(Tolerance(atol=0.0, rtol=0.0))
    return exporter
