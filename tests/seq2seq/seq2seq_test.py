"""A tiny random encoder-decoder of one family (models/seq2seq), exported by
pteforge.seq2seq on the portable and XNNPACK backends: the .pte's tokens (pteforge.load,
through load_seq2seq) equal transformers' generate() on the same model folder, greedy
over sources of several lengths and with 4 beams, each again after a reset_state; the
.pte carries the folder's tokenizer and the model's generation settings.

    seq2seq_test.py --family=t5     (t5, bart, marian, m2m_100, whisper)
"""

import os
import subprocess
import sys

import pytest
import torch
from runfiles import runfiles
from tokenizers import Tokenizer
from transformers.generation.utils import GenerationMixin

from pteforge.seq2seq import load_seq2seq
from pteforge.seq2seq.export import load_hf_seq2seq
from pteforge.support import testing

FAMILY = next(arg.split("=", 1)[1] for arg in sys.argv if arg.startswith("--family="))
BACKENDS = ("portable", "xnnpack")
MAX_LENGTH = 16  # generated with the start token; the programs hold 32 positions

_RUNFILES = runfiles.Create()
MODEL_DIR = _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_{FAMILY}")
PTE = {backend: _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_{FAMILY}_{backend}.pte") for backend in BACKENDS}
TEXTS = ["The weather is nice today.", "Hello", "Where is the station? It is near the old bridge."]


@pytest.fixture(scope="module")
def model():
    return load_hf_seq2seq(MODEL_DIR)


def _sources(model, count: int):
    """`count` sources: texts encoded by the folder's tokenizer (</s> included by its
    post-processor), or log-mel features (Whisper)."""
    if model.config.model_type == "whisper":
        frames = 2 * model.config.max_source_positions
        return torch.randn(count, model.config.num_mel_bins, frames, generator=torch.Generator().manual_seed(count))
    tokenizer = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    return [tokenizer.encode(text).ids for text in TEXTS[:count]]


def _reference(model, sources, beams: int) -> list[list[int]]:
    """generate()'s tokens after the start token, up to and including </s>."""
    with torch.no_grad():
        if model.config.model_type == "whisper":
            # GenerationMixin's generate: Whisper's own adds language detection and
            # timestamps, which a random tiny model has no use for.
            sequences = GenerationMixin.generate(model, input_features=sources, num_beams=beams, do_sample=False,
                                                 max_length=MAX_LENGTH)
        else:
            longest, pad = max(len(s) for s in sources), model.config.pad_token_id
            ids = torch.tensor([s + [pad] * (longest - len(s)) for s in sources])
            mask = torch.tensor([[1] * len(s) + [0] * (longest - len(s)) for s in sources])
            sequences = model.generate(input_ids=ids, attention_mask=mask, num_beams=beams, do_sample=False,
                                       max_length=MAX_LENGTH)
    eos = model.config.eos_token_id
    return [row[:row.index(eos) + 1] if eos in row else row for row in sequences[:, 1:].tolist()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_tokens_equal_generate(backend, model):
    program = load_seq2seq(PTE[backend])
    greedy_sources, beam_sources = _sources(model, 3), _sources(model, 2)
    expected = {1: _reference(model, greedy_sources, 1), 4: _reference(model, beam_sources, 4)}
    assert len({tuple(tokens) for tokens in expected[1]}) > 1, "the sources should lead to different tokens"
    for _ in range(2):
        assert program.generate(greedy_sources, num_beams=1, max_length=MAX_LENGTH) == expected[1]
        assert program.generate(beam_sources, num_beams=4, max_length=MAX_LENGTH) == expected[4]
        program.program.reset_state()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_program_carries_the_tokenizer_and_generation_settings(backend, model):
    program = load_seq2seq(PTE[backend])
    with open(os.path.join(MODEL_DIR, "tokenizer.json"), "rb") as f:
        assert bytes(program.constant("tokenizer_json").numpy().tobytes()) == f.read()
    generation = model.generation_config
    settings = program.settings()
    assert settings.prompt == (generation.decoder_start_token_id,)
    assert settings.eos_token_ids == (generation.eos_token_id,)
    assert settings.forced_bos_token_id == (generation.forced_bos_token_id
                                            if generation.forced_bos_token_id is not None else -1)
    assert program.constant("model_type") == FAMILY


def _generate_text(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pteforge.seq2seq.generate_text", *args], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, check=False)


def test_generate_text_prints_the_decoded_tokens(model):
    """The Python runtime's text-to-text tool: the program's own tokenizer both ways
    (Whisper's programs are refused: they take audio features)."""
    result = _generate_text(f"--model={PTE['xnnpack']}", "--beams=4", f"--max_length={MAX_LENGTH}", "--ids",
                            *TEXTS[:2])
    if model.config.model_type == "whisper":
        assert result.returncode == 1 and "is a speech model" in result.stderr and not result.stdout
        return
    assert result.returncode == 0, result.stderr
    tokenizer = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    expected = _reference(model, _sources(model, 2), 4)
    lines = result.stdout.splitlines()
    assert lines[1::2] == [" ".join(map(str, ids)) for ids in expected]
    assert lines[0::2] == [tokenizer.decode(ids, skip_special_tokens=True) for ids in expected]
    assert result.stderr == ""

if __name__ == "__main__":
    testing.main(__file__)
