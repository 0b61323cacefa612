"""int8 and int4 weights for XNNPACK (pteforge.lower.quantize) and the exporter's conformance
tolerance."""

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrize

from pteforge import ExportError, MultiMethodExporter, Tolerance
from pteforge.lower import quantize
from pteforge.support import testing


class Projector(nn.Module):
    """A shared offset (state) added before a 512 -> 1024 projection."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.projection = nn.Linear(512, 1024)
        self.register_buffer("offset", torch.zeros(1, 512))

    def set_offset(self, value: torch.Tensor) -> torch.Tensor:
        self.offset.copy_(value)
        return self.offset.sum().reshape(1)

    def project(self, x: torch.Tensor) -> torch.Tensor:
        return self.projection(x + self.offset)


def _export(module: nn.Module, tolerance: Tolerance | None = None):
    exporter = MultiMethodExporter(module.eval())
    exporter.shared_state("offset")
    exporter.method("set_offset", (torch.randn(1, 512),))
    exporter.method("project", (torch.randn(3, 512),))
    if tolerance:
        exporter.conformance_tolerance(tolerance)
    return exporter.export(backend="xnnpack")


def test_int8_weights_export_smaller_and_conform():
    full = _export(Projector())
    quantized_module = quantize.int8_linears(Projector())
    assert parametrize.is_parametrized(quantized_module.projection, "weight")
    quantized = _export(quantized_module, Tolerance(atol=0.05, rtol=0.05))
    weights = 512 * 1024
    assert len(full.data) > 4 * weights  # float32 weights
    assert len(quantized.data) < 1.25 * weights  # int8 weights, one scale per row
    assert quantized.report["conformance"]["passed"]
    assert quantized.report["conformance"]["tolerance"] == {"atol": 0.05, "rtol": 0.05, "scaled": False}


def test_int4_weights_export_smaller_than_int8_and_conform_exactly():
    int8 = _export(quantize.int8_linears(Projector()), Tolerance(atol=0.05, rtol=0.05))
    int4 = _export(quantize.int4_linears(Projector()), Tolerance(atol=0.05, rtol=0.05))
    weights = 512 * 1024
    assert len(int4.data) < 0.7 * weights < len(int8.data)  # 4 bits and a bfloat16 scale per 32
    # Eager's group scales are rounded to bfloat16 as XNNPACK stores them: the same
    # arithmetic, so only float rounding is left.
    assert int4.report["conformance"]["max_abs_error"] < 1e-3


class _TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.grouped = nn.Linear(64, 8)   # 64 = 2 groups of 32
        self.ragged = nn.Linear(48, 8)    # not a multiple of 32


def test_int4_falls_back_to_int8_per_channel_where_groups_do_not_fit():
    module = quantize.int4_linears(_TwoLayers())
    grouped, ragged = module.grouped.weight, module.ragged.weight
    assert grouped.target_dtype == torch.int4 and list(grouped.block_size) == [1, 32]
    assert ragged.target_dtype == torch.int8 and list(ragged.block_size) == [1, 48]
    assert grouped.scale.to(torch.bfloat16).float().equal(grouped.scale)  # rounded as XNNPACK keeps them


class _Lookup(nn.Module):
    """A 1000 x 64 table (and a subclass of nn.Embedding, which is left alone)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Embedding(1000, 64)
        self.scaled = _ScaledEmbedding(10, 64)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table(ids) + self.scaled(ids % 10)


class _ScaledEmbedding(nn.Embedding):
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return super().forward(ids) * 2


def test_int8_embeddings_a_quarter_of_the_bytes_and_close_to_float32():
    ids = torch.tensor([[0, 5, 999, 5, 42]])
    float32 = _Lookup().eval()
    module = quantize.int8_embeddings(_Lookup().eval())
    assert isinstance(module.table, quantize.Int8Embedding) and type(module.scaled) is _ScaledEmbedding
    # What models read of the table besides calling it (Whisper: num_embeddings).
    assert (module.table.num_embeddings, module.table.embedding_dim, module.table.padding_idx) == (
        float32.table.num_embeddings, float32.table.embedding_dim, float32.table.padding_idx)
    # Each value within half a step (its row's largest magnitude / 127) of float32.
    steps = float32.table.weight.abs().amax(dim=1)[ids] / 127
    assert ((module(ids) - float32(ids)).abs() <= steps[..., None] / 2 + 1e-6).all()
    program = MultiMethodExporter(module).method("forward", (ids,), input_ranges={0: (0, 999)}).export(backend="xnnpack")
    assert len(program.data) < 1000 * 64 * 1.5  # int8 and a scale per row, not 4 bytes a value
    assert program.report["conformance"]["max_abs_error"] == 0  # the same dequantization, exactly
    assert "quantized_decomposed::embedding_byte.out" in testing.instructions(program.data)["forward"]


def test_keep_leaves_a_layer_in_float32():
    module = quantize.int8_linears(Projector(), keep=lambda layer, name: name == "projection")
    assert not parametrize.is_parametrized(module.projection)


def test_conformance_tolerance_needs_a_tolerance():
    with pytest.raises(ExportError, match="needs a pteforge.Tolerance, got float"):
        MultiMethodExporter(Projector()).conformance_tolerance(0.1)
    with pytest.raises(ExportError, match="unknown backend 'gpu'"):
        MultiMethodExporter(Projector()).conformance_tolerance({"gpu": Tolerance()})


def test_a_tolerance_per_backend():
    exporter = MultiMethodExporter(Projector().eval()).conformance_tolerance({"xnnpack": Tolerance(atol=0.05, rtol=0.05)})
    exporter.shared_state("offset")
    exporter.method("project", (torch.randn(3, 512),))
    assert exporter.export(backend="xnnpack").report["conformance"]["tolerance"]["atol"] == 0.05
    assert exporter.export(backend="portable").report["conformance"]["tolerance"]["atol"] == 1e-5  # the default


if __name__ == "__main__":
    testing.main(__file__)
