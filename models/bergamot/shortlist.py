"""Reader for Marian's binary lexical shortlist (`lex.50.50.*.s2t.bin`) and the
candidate rule of the Bergamot engine (../../shared/FINDINGS_MARIAN.md).

Layout (little-endian, Marian's BinaryShortlistGenerator): six uint64 — magic,
checksum, firstNum, bestNum, wordToOffsetSize (source vocabulary + 1), shortListsSize
— then uint64 wordToOffset[wordToOffsetSize] and uint32 shortLists[shortListsSize];
source id i's target ids are shortLists[wordToOffset[i]:wordToOffset[i + 1]].
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

_HEADER = 6 * 8


class ShortlistFormatError(ValueError):
    """The file is not a Marian binary shortlist; says where and why."""


@dataclasses.dataclass(frozen=True)
class Shortlist:
    """first: ids 0..first-1 are always candidates; offsets [source vocab + 1]; ids."""

    first: int
    best: int
    offsets: np.ndarray
    ids: np.ndarray

    def targets(self, source_id: int) -> np.ndarray:
        return self.ids[self.offsets[source_id]:self.offsets[source_id + 1]]

    def candidates(self, source_ids: list[int], multiple: int = 8) -> list[int]:
        """The engine's candidate target ids for a sentence, ascending: ids
        0..first-1, the lists of every distinct source id (</s> included), padded to a
        multiple of `multiple` with the smallest unused ids >= first."""
        chosen = set(range(self.first))
        for source_id in set(source_ids):
            if not 0 <= source_id < len(self.offsets) - 1:
                raise ValueError(f"source id {source_id} is outside the shortlist's vocabulary "
                                 f"(0..{len(self.offsets) - 2})")
            chosen.update(self.targets(source_id).tolist())
        pad = self.first
        while len(chosen) % multiple:
            if pad not in chosen:
                chosen.add(pad)
            pad += 1
        return sorted(chosen)


def read_shortlist(path: str | os.PathLike) -> Shortlist:
    """Reads a binary shortlist (see the module docstring).

    Raises:
      ShortlistFormatError: truncated file, or sizes and offsets that do not fit.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < _HEADER:
        raise ShortlistFormatError(f"{path}: {len(data)} bytes, shorter than the {_HEADER}-byte header")
    _magic, _checksum, first, best, offsets_size, ids_size = np.frombuffer(data, "<u8", 6).tolist()
    expected = _HEADER + 8 * offsets_size + 4 * ids_size
    if len(data) != expected:
        raise ShortlistFormatError(f"{path}: the header declares {offsets_size} offsets and {ids_size} ids "
                                   f"({expected} bytes), the file has {len(data)}")
    offsets = np.frombuffer(data, "<u8", offsets_size, _HEADER).astype(np.int64)
    ids = np.frombuffer(data, "<u4", ids_size, _HEADER + 8 * offsets_size).astype(np.int64)
    if offsets_size < 2 or offsets[0] != 0 or offsets[-1] != ids_size or np.any(np.diff(offsets) < 0):
        raise ShortlistFormatError(f"{path}: offsets are not increasing from 0 to {ids_size}")
    return Shortlist(int(first), int(best), offsets, ids)
