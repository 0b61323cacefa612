"""The C++ transcribe tool on the tiny Whisper of models/seq2seq (0.32 s windows): on
speech made with espeak-ng (tests/vad), every window's generated ids equal transformers'
generate() on WhisperFeatureExtractor's features of that window with Whisper's decoder
prompt (<|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>), greedy and with 4
beams, and the text is the tokenizer's decoding of them; bad input is a clear error.
"""

import os
import subprocess
import wave

import numpy as np
import pytest
import torch
from runfiles import runfiles
from tokenizers import Tokenizer
from transformers import WhisperFeatureExtractor
from transformers.generation.utils import GenerationMixin

from pteforge.seq2seq.export import load_hf_seq2seq
from pteforge.support import testing

_RUNFILES = runfiles.Create()
TRANSCRIBE = _RUNFILES.Rlocation("pteforge/cc/tools/transcribe")
FOLDER = _RUNFILES.Rlocation("pteforge/models/seq2seq/tiny_whisper")
SPEECH = _RUNFILES.Rlocation("pteforge/tests/vad/audio/en_us_16k.wav")
MAX_LENGTH = 16
PROMPT = ["<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"]


def _pte(backend: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_whisper_{backend}.pte")


def _transcribe(*args: str) -> subprocess.CompletedProcess:
    # Window by window with transformers' generate(): what the ids are compared with.
    return subprocess.run([TRANSCRIBE, "--quiet", "--decoding=windows", *args], capture_output=True, text=True,
                          timeout=600, check=False)


def _samples(path: str) -> np.ndarray:
    with wave.open(path, "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def _reference(model, tokenizer, beams: int) -> list[list[int]]:
    """generate() per window of the encoder's length, on the extractor's features."""
    window = 2 * model.config.max_source_positions * 160
    extractor = WhisperFeatureExtractor(feature_size=model.config.num_mel_bins)
    extractor.n_samples, extractor.nb_max_frames = window, window // 160
    samples = _samples(SPEECH)
    prompt = torch.tensor([[tokenizer.token_to_id(token) for token in PROMPT]])
    eos = model.config.eos_token_id
    out = []
    for start in range(0, len(samples), window):
        features = extractor(samples[start:start + window], sampling_rate=16000, return_tensors="pt").input_features
        with torch.no_grad():
            ids = GenerationMixin.generate(model, input_features=features, decoder_input_ids=prompt,
                                           num_beams=beams, do_sample=False, max_length=MAX_LENGTH)
        row = ids[0, len(PROMPT):].tolist()
        out.append(row[:row.index(eos) + 1] if eos in row else row)
    return out


@pytest.mark.parametrize("backend, beams", [("xnnpack", 1), ("xnnpack", 4), ("portable", 1)])
def test_ids_and_text_equal_transformers(backend, beams):
    model = load_hf_seq2seq(FOLDER)
    tokenizer = Tokenizer.from_file(os.path.join(FOLDER, "tokenizer.json"))
    result = _transcribe(f"--model={_pte(backend)}", f"--beams={beams}", f"--max_length={MAX_LENGTH}",
                         "--print_ids", SPEECH)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    expected = _reference(model, tokenizer, beams)
    assert len(expected) > 20  # 10 s of audio in 0.32 s windows
    assert [line.split(":")[1].split() for line in lines[1:]] == [[str(t) for t in ids] for ids in expected]
    assert lines[0] == "".join(tokenizer.decode(ids, skip_special_tokens=True) for ids in expected)
    assert len({tuple(ids) for ids in expected}) > 3, "windows of speech and silence should differ"
    assert result.stderr == ""


def test_bad_input_is_a_clear_error(tmp_path):
    wrong_rate = _RUNFILES.Rlocation("pteforge/tests/vad/audio/en_gb_8k.wav")
    result = _transcribe(f"--model={_pte('xnnpack')}", wrong_rate, str(tmp_path / "missing.wav"), SPEECH)
    assert result.returncode == 1
    assert "is sampled at 8000 Hz; Whisper takes 16 kHz" in result.stderr
    assert "missing.wav" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["", ""] and lines[2]  # the good file is still transcribed

    text = _RUNFILES.Rlocation("pteforge/models/seq2seq/tiny_t5_xnnpack.pte")
    result = _transcribe(f"--model={text}", SPEECH)
    assert result.returncode == 1 and "is a text model (its encoder takes input_ids, not audio)" in result.stderr

    for flag, message in [("--task=summarize", "task 'summarize': expected transcribe or translate"),
                          ("--language=xx", "the model's tokenizer has no <|xx|> token")]:
        result = _transcribe(f"--model={_pte('xnnpack')}", flag, SPEECH)
        assert result.returncode == 1 and message in result.stderr, result.stderr
    result = _transcribe(f"--model={_pte('xnnpack')}")
    assert result.returncode == 2 and "give one or more WAV files" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
