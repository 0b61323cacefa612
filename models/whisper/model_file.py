"""Reads CTranslate2's `model.bin`: the variables of a converted model, by name.

The format (binary version 6; written by CTranslate2's python/ctranslate2/specs/
model_spec.py `ModelSpec._serialize`, read by its src/models/model.cc), little-endian:

    u32 version, str spec, u32 revision, u32 n_variables
    n_variables x (str name, u8 rank, u32 dims[rank], u8 dtype, u32 n_bytes, data)
    u32 n_aliases
    n_aliases x (str alias, str target)

where `str` is a u16 length (the NUL included) and that many bytes, and dtype is an
index into DTYPES. There is no magic number: the version is checked instead, then every
length against what is left of the file, so that a file that is not a model.bin, or a
truncated one, is refused with the offset where it went wrong.

    model = read_model_file("model.bin")
    model.spec, model.revision          # "WhisperSpec", 3
    model.variables["encoder/conv1/weight"]   # a torch tensor, its stored dtype
    model.aliases["decoder/projection/weight"]  # "decoder/embeddings/weight"
"""

from __future__ import annotations

import dataclasses
import math
import os
import struct

import torch

# The binary version this reader knows: what CTranslate2 2.x to 4.x writes.
VERSION = 6
# The dtype ids, in the order of CTranslate2's DataType enum (include/ctranslate2/types.h).
DTYPES = (torch.float32, torch.int8, torch.int16, torch.int32, torch.float16, torch.bfloat16)
# No model has tensors of higher rank; a larger value means the file is not a model.bin.
_MAX_RANK = 8


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


class ModelFileError(ValueError):
    """The file is not a CTranslate2 model.bin this reader can read; says where and why."""


@dataclasses.dataclass(frozen=True)
class ModelFile:
    """A model.bin's contents. variables: name -> tensor (the stored dtype and shape;
    scalars have shape ()); aliases: name -> the variable's name it repeats."""

    path: str
    spec: str
    revision: int
    variables: dict[str, torch.Tensor]
    aliases: dict[str, str]

    def resolve(self, name: str) -> torch.Tensor:
        """The tensor of a variable or of an alias."""
        return self.variables[self.aliases.get(name, name)]


class _Reader:
    """Reads the file's fields in order, each checked against the bytes left."""

    def __init__(self, path: str, data: bytes):
        self.path, self.data, self.offset = path, data, 0

    def fail(self, message: str) -> ModelFileError:
        return ModelFileError(f"{self.path}: {message}")

    def take(self, count: int, what: str) -> bytes:
        end = self.offset + count
        if end > len(self.data):
            raise self.fail(f"truncated: {what} needs {count} bytes at offset {self.offset}, but the file ends at "
                            f"{len(self.data)} (an incomplete download or copy? fetch the model again)")
        chunk = self.data[self.offset:end]
        self.offset = end
        return chunk

    def unsigned(self, fmt: str, what: str) -> int:
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt), what))[0]

    def string(self, what: str) -> str:
        length = self.unsigned("H", f"the length of {what}")
        raw = self.take(length, what)
        if not length or raw[-1] != 0:
            raise self.fail(f"{what} at offset {self.offset - length} is not a NUL-terminated string")
        try:
            return raw[:-1].decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(f"{what} at offset {self.offset - length} is not UTF-8") from None


def _variable(reader: _Reader, index: int) -> tuple[str, torch.Tensor]:
    name = reader.string(f"the name of variable {index}")
    rank = reader.unsigned("B", f"the rank of {name}")
    if rank > _MAX_RANK:
        raise reader.fail(f"variable {name} has rank {rank}; a CTranslate2 model has at most {_MAX_RANK}")
    shape = [reader.unsigned("I", f"dimension {d} of {name}") for d in range(rank)]
    dtype_id = reader.unsigned("B", f"the dtype of {name}")
    if dtype_id >= len(DTYPES):
        raise reader.fail(f"variable {name} has dtype id {dtype_id}, which is none of CTranslate2's "
                          f"({', '.join(f'{i} {_dtype_name(t)}' for i, t in enumerate(DTYPES))}); "
                          "the file is damaged or from a newer CTranslate2")
    dtype = DTYPES[dtype_id]
    count = reader.unsigned("I", f"the byte count of {name}")
    expected = math.prod(shape) * dtype.itemsize
    if count != expected:
        raise reader.fail(f"variable {name} holds {count} bytes, but {shape} of {_dtype_name(dtype)} "
                          f"is {expected}")
    raw = reader.take(count, f"the data of {name}")
    tensor = torch.frombuffer(bytearray(raw), dtype=dtype) if count else torch.zeros(0, dtype=dtype)
    return name, tensor.reshape(shape)


def parse_model_file(data: bytes, path: str = "model.bin") -> ModelFile:
    """Parses a model.bin's bytes; `path` names it in errors."""
    reader = _Reader(path, data)
    version = reader.unsigned("I", "the binary version")
    if version != VERSION:
        raise reader.fail(f"binary version {version}: not a CTranslate2 model.bin of version {VERSION} (the only "
                          "one this reader knows; CTranslate2 2.x to 4.x write it: convert the model again with "
                          "ct2-transformers-converter)")
    spec = reader.string("the spec name")
    revision = reader.unsigned("I", "the spec revision")
    variables: dict[str, torch.Tensor] = {}
    for index in range(reader.unsigned("I", "the variable count")):
        name, tensor = _variable(reader, index)
        if name in variables:
            raise reader.fail(f"variable {name} appears twice")
        variables[name] = tensor
    aliases: dict[str, str] = {}
    for index in range(reader.unsigned("I", "the alias count")):
        alias = reader.string(f"the name of alias {index}")
        target = reader.string(f"the target of alias {alias}")
        if target not in variables:
            raise reader.fail(f"alias {alias} names {target}, which is not a variable of the file")
        if alias in variables or alias in aliases:
            raise reader.fail(f"alias {alias} is also a variable or another alias")
        aliases[alias] = target
    if reader.offset != len(data):
        raise reader.fail(f"{len(data) - reader.offset} bytes follow the aliases at offset {reader.offset}; a "
                          "model.bin ends with them (a damaged file, or not a model.bin)")
    return ModelFile(path, spec, revision, variables, aliases)


def read_model_file(path: str | os.PathLike) -> ModelFile:
    """Reads a model.bin (see the module's docstring)."""
    path = os.fspath(path)
    with open(path, "rb") as file:
        return parse_model_file(file.read(), path)
