"""The word error rate and its normalizer (models/whisper/wer.py)."""

import pytest

from models.whisper import wer
from pteforge.support import testing


def test_normalize_spells_numbers_and_drops_punctuation():
    assert wer.normalize("More than 400 people, at 9:30!") == "more than four hundred people at nine thirty".split()
    assert wer.normalize("Up 12% & 1,005 don't 2.50 twenty-one") == (
        "up twelve percent and one thousand five dont two point five zero twenty one".split())
    assert wer.number_words(0) == ["zero"] and wer.number_words(3_000_019) == ["three", "million", "nineteen"]


def test_errors_count_substitutions_insertions_and_deletions():
    reference = "the quick brown fox"
    assert wer.word_errors("The quick brown fox.", reference) == (0, 4)
    assert wer.word_errors("the quick fox", reference) == (1, 4)
    assert wer.word_errors("the very quick brown box", reference) == (2, 4)
    assert wer.wer("", reference) == 1.0
    assert wer.wer("More than 400 people.", "More than four hundred people.") == 0.0
    with pytest.raises(ValueError):
        wer.wer("words", " ... ")


def test_the_command_reads_scripts_and_reference_json(tmp_path, capsys):
    script = tmp_path / "script.txt"
    script.write_text("# voice|pause|sentence\nen-us|0.5|One two.\nen-gb|1.0|Three four.\n")
    hypothesis = tmp_path / "out.json"
    hypothesis.write_text('{"text": " One two. Three for.", "segments": []}')
    assert wer.main(["wer", str(script), str(hypothesis)]) == 0
    assert capsys.readouterr().out == "WER 25.00% (1 errors in 4 words)\n"


if __name__ == "__main__":
    testing.main(__file__)
