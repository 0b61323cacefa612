"""model.bin as CTranslate2 writes it reads back tensor for tensor (every dtype the
converter writes), and a file that is not one is refused with a ModelFileError saying
where, never a crash."""

import struct

import pytest
import torch

from models.whisper import model_file
from models.whisper.model_file import ModelFileError, parse_model_file, read_model_file
from models.whisper.tiny_ct2_model import write_tiny_ct2_model
from pteforge.support import testing


def _string(text: str) -> bytes:
    raw = text.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


def _bytes(tensor: torch.Tensor) -> bytes:
    return tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _file(variables, aliases=(), version=model_file.VERSION, spec="WhisperSpec", revision=3) -> bytes:
    """A model.bin in the documented format: variables are (name, tensor, dtype id)."""
    out = struct.pack("<I", version) + _string(spec) + struct.pack("<II", revision, len(variables))
    for name, tensor, dtype_id in variables:
        raw = _bytes(tensor)
        out += _string(name) + struct.pack("<B", tensor.dim()) + struct.pack(f"<{tensor.dim()}I", *tensor.shape)
        out += struct.pack("<BI", dtype_id, len(raw)) + raw
    out += struct.pack("<I", len(aliases))
    for alias, target in aliases:
        out += _string(alias) + _string(target)
    return out


def _every_dtype():
    generator = torch.Generator().manual_seed(3)
    values = torch.randn(3, 5, generator=generator) * 100
    return [(f"v/{str(dtype).replace('torch.', '')}", values.to(dtype), index)
            for index, dtype in enumerate(model_file.DTYPES)]


def test_every_dtype_shape_and_alias_reads_back():
    variables = _every_dtype() + [("scalar", torch.tensor(6, dtype=torch.int16), 2),
                                  ("cube", torch.arange(24, dtype=torch.int32).reshape(2, 3, 4), 3)]
    read = parse_model_file(_file(variables, aliases=[("v/alias", "v/float16")]))
    assert (read.spec, read.revision) == ("WhisperSpec", 3)
    assert list(read.variables) == [name for name, _, _ in variables]
    for name, tensor, _ in variables:
        assert read.variables[name].dtype == tensor.dtype and torch.equal(read.variables[name], tensor), name
    assert read.aliases == {"v/alias": "v/float16"}
    assert torch.equal(read.resolve("v/alias"), variables[4][1])


@pytest.mark.parametrize("quantization", ["float32", "float16", "bfloat16", "int8", "int16", "int8_float16"])
def test_ctranslate2s_own_files_read_back_tensor_for_tensor(tmp_path, quantization):
    _, spec = write_tiny_ct2_model(str(tmp_path / "ct2"), quantization)
    read = read_model_file(tmp_path / "ct2" / "model.bin")
    assert (read.spec, read.revision) == (spec.name, spec.revision)
    written = spec.variables()
    assert set(read.variables) | set(read.aliases) == set(written)
    for name, value in written.items():
        if isinstance(value, str):
            assert read.aliases[name] == value
            continue
        tensor = read.variables[name]
        assert list(tensor.shape) == list(value.shape) and str(tensor.dtype) == f"torch.{value.dtype}", name
        assert _bytes(tensor) == value.to_bytes(), name
    stored = {str(tensor.dtype) for tensor in read.variables.values() if tensor.dim() > 1}
    assert f"torch.{quantization.split('_')[0]}" in stored


def _error(data: bytes) -> str:
    with pytest.raises(ModelFileError) as error:
        parse_model_file(data, "damaged/model.bin")
    message = str(error.value)
    assert message.startswith("damaged/model.bin: "), message
    return message


def test_every_truncation_is_refused_with_its_offset():
    data = _file(_every_dtype(), aliases=[("v/alias", "v/float32")])
    for length in range(len(data)):
        message = _error(data[:length])
        assert "truncated" in message and f"file ends at {length}" in message, (length, message)


def test_a_file_of_another_kind_or_version():
    assert "binary version 5" in _error(_file(_every_dtype(), version=5))
    assert "not a CTranslate2 model.bin" in _error(b"PK\x03\x04" + bytes(64))  # a zip (a .safetensors is no better)
    assert "truncated: the binary version" in _error(b"\x06\x00\x00")


def test_damaged_fields():
    good = [("w", torch.ones(2, 2), 0)]
    unknown_dtype = bytearray(_file(good))
    dtype_at = unknown_dtype.index(b"w\0") + 2 + 1 + 8
    unknown_dtype[dtype_at] = 9
    assert "dtype id 9" in _error(bytes(unknown_dtype))
    wrong_count = bytearray(_file(good))
    wrong_count[dtype_at + 1] = 15
    assert "holds 15 bytes, but [2, 2] of float32 is 16" in _error(bytes(wrong_count))
    assert "4 bytes follow the aliases" in _error(_file(good) + b"junk")
    assert "names x, which is not a variable" in _error(_file(good, aliases=[("a", "x")]))
    assert "appears twice" in _error(_file(good + good))
    rank = bytearray(_file(good))
    rank[dtype_at - 9] = 200
    assert "rank 200" in _error(bytes(rank))
    bad_name = _file(good).replace(b"w\0", b"\xff\0")
    assert "not UTF-8" in _error(bad_name)
    no_nul = _file(good).replace(b"w\0", b"ww")
    assert "not a NUL-terminated string" in _error(no_nul)


if __name__ == "__main__":
    testing.main(__file__)
