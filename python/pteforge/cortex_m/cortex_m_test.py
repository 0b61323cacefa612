"""backend="cortex_m": pteforge's operators defined as their docstrings say, linear layers
moved onto them (ReLU fused), int8 quantization, and programs that run in ExecuTorch's
Python runtime on the C++ reference kernels (cc/kernels) exactly as in eager PyTorch.
(The Cortex-M55's CMSIS-NN kernels against these: //tests/cortex_m.)"""

import pytest
import torch
from torch import nn

from pteforge import ExportError, MultiMethodExporter
from pteforge.cortex_m import kernels, lowering, lstm_op, ops, quantize, stft_op
from pteforge.support import testing


def _formula_dq(bits, x, weight, weight_scales, input_scales, bias, relu):
    """linear_dq<bits> written out element by element from the module docstring."""
    levels = {8: 127.0, 16: 32767.0}[bits]
    out = torch.empty(x.shape[0], weight.shape[0])
    for r in range(x.shape[0]):
        row = x[r] * input_scales if input_scales is not None else x[r]
        amax = row.abs().max()
        inverse = torch.tensor(levels) / amax if amax > 0 else torch.tensor(0.0)
        q = torch.round(row * inverse).clamp(-levels, levels).to(torch.int64)
        scale = amax / torch.tensor(levels)
        for j in range(weight.shape[0]):
            value = (q * weight[j].to(torch.int64)).sum().to(torch.float32) * scale * weight_scales[j]
            if bias is not None:
                value = value + bias[j]
            out[r, j] = torch.relu(value) if relu else value
    return out


@pytest.mark.parametrize("bits,weight_type", [(8, torch.int8), (16, torch.int8), (16, torch.int16)])
@pytest.mark.parametrize("scaled", [False, True])
def test_dynamic_linear_is_its_written_definition(bits, weight_type, scaled):
    generator = torch.Generator().manual_seed(bits + scaled)
    x = torch.randn(3, 37, generator=generator) * torch.linspace(0.01, 10, 37)
    x[1] = 0  # an all-zero row: scale 0, the bias alone
    levels = torch.iinfo(weight_type).max
    weight = torch.randint(-levels, levels + 1, (5, 37), generator=generator, dtype=weight_type)
    weight_scales = torch.rand(5, generator=generator) / 100
    input_scales = torch.rand(37, generator=generator) + 0.5 if scaled else None
    bias = torch.randn(5, generator=generator)
    operator = getattr(torch.ops.pteforge, f"linear_dq{bits}")
    for relu in (False, True):
        got = operator(x, weight, weight_scales, input_scales, bias, relu)
        assert torch.equal(got, _formula_dq(bits, x, weight, weight_scales, input_scales, bias, relu))
    assert torch.equal(operator(x[1:2], weight, weight_scales, input_scales, bias, False), bias[None, :])


def test_int16_weights_are_for_linear_dq16_only():
    x, weight = torch.randn(2, 8), torch.zeros(3, 8, dtype=torch.int16)
    assert torch.ops.pteforge.linear_dq16(x, weight, torch.ones(3), None, None, False).shape == (2, 3)
    with pytest.raises(RuntimeError, match="weight must be torch.int8, got torch.int16"):
        torch.ops.pteforge.linear_dq8(x, weight, torch.ones(3), None, None, False)


def test_sixteen_bit_activations_are_finer_than_eight():
    generator = torch.Generator().manual_seed(0)
    x, weight = torch.randn(4, 64, generator=generator), torch.randn(16, 64, generator=generator)
    q, scales = quantize.quantize_weight(weight)
    exact = x @ (q.float() * scales[:, None]).t()
    error = {bits: (getattr(torch.ops.pteforge, f"linear_dq{bits}")(x, q, scales, None, None, False) - exact).abs().max()
             for bits in (8, 16)}
    assert error[16] * 50 < error[8], error


def test_float_linear_is_f_linear_then_relu():
    x, weight, bias = torch.randn(2, 3, 8), torch.randn(4, 8), torch.randn(4)
    assert torch.equal(torch.ops.pteforge.linear(x, weight, bias, False), nn.functional.linear(x, weight, bias))
    assert torch.equal(torch.ops.pteforge.linear(x, weight, None, True), torch.relu(nn.functional.linear(x, weight)))


class Network(nn.Module):
    """Linear layers with and without bias and ReLU, a linear on state, and an output
    that is a layer's result directly."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = nn.Linear(12, 24)
        self.second = nn.Linear(24, 6, bias=False)
        self.register_buffer("memory", torch.zeros(6, 6))

    def step(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = torch.relu(self.first(x))
        out = self.second(hidden)
        self.memory.add_(out[:1].t() @ out[:1])
        return out, nn.functional.linear(out, self.memory)


def _captured(module):
    from pteforge.capture.capture import capture

    return capture(module, "step", type(module).step, (torch.randn(3, 12),)).program


def test_lowering_moves_every_float_linear_and_fuses_relu():
    program = _captured(Network().eval())
    assert lowering.use_cmsis_nn(program) == 3
    targets = [node.target for node in program.graph.nodes if node.op == "call_function"]
    assert torch.ops.aten.linear.default not in targets
    assert torch.ops.aten.relu.default not in targets
    relus = [node.args[-1] for node in program.graph.nodes if node.target == torch.ops.pteforge.linear.default]
    assert sorted(relus) == [False, False, True]


def _export(module, calls=4):
    exporter = MultiMethodExporter(module.eval(), name="network")
    exporter.shared_state("memory")
    exporter.method("step", (torch.randn(3, 12),))
    generator = torch.Generator().manual_seed(1)
    exporter.call_sequence([("step", (torch.randn(3, 12, generator=generator) * 4,)) for _ in range(calls)])
    return exporter.export(backend="cortex_m")


def test_float_program_runs_on_the_reference_kernels_as_in_eager():
    program = _export(Network())
    assert program.report["conformance"]["passed"]
    assert b"pteforge::linear" in program.data and b"aten::addmm" not in program.data


@pytest.mark.parametrize("bits", [8, 16])
def test_int8_layers_equal_their_eager_module_exactly(bits):
    torch.manual_seed(bits)
    module = quantize.int8_linears(nn.Sequential(nn.Linear(40, 33), nn.ReLU(), nn.Linear(33, 5)), activation_bits=bits)
    assert isinstance(module[0], quantize.DynamicLinear)
    exporter = MultiMethodExporter(module.eval(), name="mlp")
    exporter.method("forward", (torch.randn(7, 40),))
    exporter.call_sequence([("forward", (torch.randn(7, 40) * scale,)) for scale in (0.01, 1, 300)])
    program = exporter.export(backend="cortex_m")
    # Integer sums and the same float operations in the same order: the same bits.
    assert program.report["conformance"]["max_abs_error"] == 0.0
    assert f"pteforge::linear_dq{bits}".encode() in program.data
    assert b"aten::relu" not in program.data  # fused into the first layer


def test_int8_weights_take_a_quarter_of_the_space():
    def constants(module):
        return _export(module).report["sizes"]["constant_data_bytes"]

    # 1824 bytes of float32 weights and biases, 648 with int8 weights (+ scales).
    assert constants(quantize.int8_linears(Network())) < 0.4 * constants(Network())


def test_a_layer_can_stay_float():
    module = quantize.int8_linears(Network(), keep=lambda layer, name: name == "second")
    assert isinstance(module.first, quantize.DynamicLinear) and isinstance(module.second, nn.Linear)


def test_stft_magnitude_is_torch_stft_magnitude_in_double_precision():
    generator = torch.Generator().manual_seed(3)
    signal, window = torch.randn(2, 700, generator=generator), torch.rand(256, generator=generator)
    got = torch.ops.pteforge.stft_magnitude(signal, window, 128)
    expected = torch.stft(signal.double(), 256, hop_length=128, window=window.double(), center=False,
                          return_complex=True).abs().transpose(1, 2).float()
    assert got.shape == (2, 4, 129) and got.dtype == torch.float32
    assert torch.equal(got, expected)
    with pytest.raises(RuntimeError, match="power of two"):
        torch.ops.pteforge.stft_magnitude(signal, window[:200], 128)


class Spectrum(nn.Module):
    """A spectrum's magnitude from the signal with a stored tail, as a streaming model
    computes it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(64))
        self.register_buffer("tail", torch.zeros(1, 32))

    def step(self, chunk: torch.Tensor) -> torch.Tensor:
        signal = torch.cat([self.tail, chunk], dim=1)
        self.tail.copy_(signal[:, -32:])
        return torch.ops.pteforge.stft_magnitude(signal, self.window, 32) * 2


def test_stft_program_runs_on_the_reference_kernel_as_in_eager():
    exporter = MultiMethodExporter(Spectrum().eval(), name="spectrum")
    exporter.shared_state("tail")
    exporter.method("step", (torch.randn(1, 96),))
    generator = torch.Generator().manual_seed(2)
    exporter.call_sequence([("step", (torch.randn(1, 96, generator=generator),)) for _ in range(4)])
    program = exporter.export(backend="cortex_m")
    assert program.report["conformance"]["passed"]
    assert program.report["conformance"]["max_abs_error"] <= 1e-6
    assert b"pteforge::stft_magnitude" in program.data


def test_lstm_cell_is_nn_lstm_cell_after_its_products():
    torch.manual_seed(5)
    cell = nn.LSTMCell(6, 8)
    x, h, c = torch.randn(3, 6), torch.randn(3, 8), torch.randn(3, 8)
    with torch.no_grad():
        expected_h, expected_c = cell(x, (h, c))
        got_h, got_c = torch.ops.pteforge.lstm_cell(nn.functional.linear(x, cell.weight_ih, cell.bias_ih),
                                                    nn.functional.linear(h, cell.weight_hh, cell.bias_hh), c)
    assert torch.allclose(got_h, expected_h, atol=1e-6) and torch.allclose(got_c, expected_c, atol=1e-6)
    with pytest.raises(RuntimeError, match=r"gates \[B, 4H\] and cell \[B, H\]"):
        torch.ops.pteforge.lstm_cell(torch.zeros(3, 30), torch.zeros(3, 30), c)


class Recurrent(nn.Module):
    """An LSTM cell over its state, both results used."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(6)
        self.input_gates, self.hidden_gates = nn.Linear(5, 16), nn.Linear(4, 16)
        self.register_buffer("h", torch.zeros(1, 4))
        self.register_buffer("c", torch.zeros(1, 4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        h, c = torch.ops.pteforge.lstm_cell(self.input_gates(x), self.hidden_gates(self.h), self.c)
        self.h.copy_(h)
        self.c.copy_(c)
        return h * 2


def test_lstm_program_runs_on_the_reference_kernel_as_in_eager():
    exporter = MultiMethodExporter(Recurrent().eval(), name="recurrent")
    exporter.shared_state("h", "c")
    exporter.method("step", (torch.randn(1, 5),))
    generator = torch.Generator().manual_seed(3)
    exporter.call_sequence([("step", (torch.randn(1, 5, generator=generator) * 3,)) for _ in range(5)])
    program = exporter.export(backend="cortex_m")
    assert program.report["conformance"]["passed"]
    assert program.report["conformance"]["max_abs_error"] <= 1e-6
    assert b"pteforge::lstm_cell" in program.data
    assert b"aten::sigmoid" not in program.data and b"aten::tanh" not in program.data


def test_without_the_kernel_library_the_error_says_how_to_build_it(monkeypatch, tmp_path):
    kernels.load.cache_clear()
    monkeypatch.setenv(kernels.LIBRARY_ENV, str(tmp_path / "missing.so"))
    try:
        with pytest.raises(ExportError, match="libpteforge_kernels.so"):
            kernels.load()
    finally:
        kernels.load.cache_clear()


def test_operators_listed_for_programs_are_the_defined_ones():
    assert ops.PROGRAM_OPERATORS == ("pteforge::linear.out", "pteforge::linear_dq16.out", "pteforge::linear_dq8.out")
    assert stft_op.PROGRAM_OPERATOR == "pteforge::stft_magnitude.out"
    assert lstm_op.PROGRAM_OPERATOR == "pteforge::lstm_cell.out"


if __name__ == "__main__":
    testing.main(__file__)
