"""The C++ translate tool on pteforge.seq2seq programs: for the tiny T5, BART, Marian and
M2M100 of models/seq2seq, the source ids are the tokenizer.json's (C++ tokenizer), the
generated ids equal transformers' generate() greedy and with 4 beams (cc/generate's
search with the model's logits processors: forced BOS and EOS tokens, bad words,
renormalization), and the text is the tokenizer's decoding of them. A Whisper program
is refused with a clear error.
"""

import os
import subprocess

import pytest
import torch
from runfiles import runfiles
from tokenizers import Tokenizer

from pteforge.seq2seq.export import load_hf_seq2seq
from pteforge.support import testing

_RUNFILES = runfiles.Create()
TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
TEXT_FAMILIES = ("t5", "bart", "marian", "m2m_100")
TEXTS = ["The weather is nice today.", "Hello", "Where is the station? It is near the old bridge."]
MAX_LENGTH = 16


def _folder(family: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_{family}")


def _pte(family: str, backend: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_{family}_{backend}.pte")


def _translate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TRANSLATE, "--quiet", *args], capture_output=True, text=True, timeout=300, check=False)


def _reference(model, tokenizer, beams: int, prefix: str = "", texts=TEXTS, **settings) -> list[list[int]]:
    sources = [tokenizer.encode(prefix + text).ids for text in texts]
    longest, pad = max(map(len, sources)), model.config.pad_token_id
    ids = torch.tensor([s + [pad] * (longest - len(s)) for s in sources])
    mask = torch.tensor([[1] * len(s) + [0] * (longest - len(s)) for s in sources])
    with torch.no_grad():
        sequences = model.generate(input_ids=ids, attention_mask=mask, num_beams=beams, do_sample=False,
                                   max_length=MAX_LENGTH, **settings)
    eos = model.config.eos_token_id
    return [row[:row.index(eos) + 1] if eos in row else row for row in sequences[:, 1:].tolist()]


@pytest.mark.parametrize("backend, beams", [("xnnpack", 1), ("xnnpack", 4), ("portable", 4)])
@pytest.mark.parametrize("family", TEXT_FAMILIES)
def test_ids_and_text_equal_transformers(family, backend, beams):
    model = load_hf_seq2seq(_folder(family))
    tokenizer = Tokenizer.from_file(os.path.join(_folder(family), "tokenizer.json"))
    result = _translate(f"--model={_pte(family, backend)}", f"--beams={beams}", f"--max_length={MAX_LENGTH}",
                        "--print_ids", *TEXTS)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 * len(TEXTS), result.stdout
    expected = _reference(model, tokenizer, beams)
    for i, text in enumerate(TEXTS):
        translated, source, output = lines[3 * i:3 * i + 3]
        assert source.split(":")[1].split() == [str(t) for t in tokenizer.encode(text).ids]
        assert output.split(":")[1].split() == [str(t) for t in expected[i]], f"{family} {text!r}"
        assert translated == tokenizer.decode(expected[i], skip_special_tokens=True)
    assert result.stderr == ""


@pytest.mark.parametrize("family, flag, prefix, settings", [
    ("t5", "--prefix=translate English to French: ", "translate English to French: ", {}),
    ("m2m_100", "--target_token=__en__", "", {"forced_bos_token_id": 4}),  # __en__ (make_tiny_model.py)
])
def test_a_task_prefix_and_a_target_language_token(family, flag, prefix, settings):
    model = load_hf_seq2seq(_folder(family))
    tokenizer = Tokenizer.from_file(os.path.join(_folder(family), "tokenizer.json"))
    texts = TEXTS[:2]  # the third with the prefix is longer than the programs take
    result = _translate(f"--model={_pte(family, 'xnnpack')}", "--beams=4", f"--max_length={MAX_LENGTH}",
                        "--print_ids", flag, *texts)
    assert result.returncode == 0, result.stderr
    expected = _reference(model, tokenizer, 4, prefix, texts, **settings)
    outputs = [line.split(":")[1].split() for line in result.stdout.splitlines()[2::3]]
    assert outputs == [[str(t) for t in ids] for ids in expected]
    if settings:
        assert {ids[0] for ids in expected} == {settings["forced_bos_token_id"]}


def test_an_unknown_target_token_is_refused():
    result = _translate(f"--model={_pte('m2m_100', 'xnnpack')}", "--target_token=__xx__", "Hello")
    assert result.returncode == 2
    assert "--target_token=__xx__: the model's tokenizer has no such token" in result.stderr
    assert result.stdout == ""


def test_a_speech_program_is_refused():
    result = _translate(f"--model={_pte('whisper', 'xnnpack')}", "Hello")
    assert result.returncode == 1
    assert "is a speech model (its encoder takes input_features, not text)" in result.stderr
    assert result.stdout == ""


def test_a_source_longer_than_the_model_takes_is_an_error_for_that_sentence_only():
    long_text = " ".join(["The weather is nice today."] * 20)
    result = _translate(f"--model={_pte('t5', 'xnnpack')}", f"--max_length={MAX_LENGTH}", long_text, "Hello")
    assert result.returncode == 1
    assert "is more than this model's max_source_length of 32" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "" and lines[1]


if __name__ == "__main__":
    testing.main(__file__)
