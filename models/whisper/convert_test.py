"""The convert command writes a transformers folder that transformers' own classes load
(model, generation config, tokenizer with timestamps, feature extractor) and that gives
the original model's logits; a directory that is not a CTranslate2 Whisper model gets
`convert: error: ...` and exit status 1."""

import json
import os
import shutil
import subprocess

import pytest
import torch
from runfiles import runfiles

from models.whisper.convert import build_model
from models.whisper.model_file import read_model_file
from models.whisper.tiny_ct2_model import SOURCE_POSITIONS, write_tiny_ct2_model
from models.whisper.tokenizer import TokenizerError
from pteforge.support import testing


@pytest.fixture(scope="module")
def ct2_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("ct2") / "tiny")
    model, _ = write_tiny_ct2_model(folder, "float16")
    return folder, model


def _convert(*arguments: str) -> subprocess.CompletedProcess:
    tool = runfiles.Create().Rlocation("pteforge/models/whisper/convert")
    return subprocess.run([tool, *arguments], capture_output=True, text=True, timeout=240)


def test_the_folder_loads_in_transformers(ct2_dir, tmp_path):
    from transformers import (AutoTokenizer, GenerationConfig, WhisperFeatureExtractor,
                              WhisperForConditionalGeneration)

    folder, original = ct2_dir
    out = str(tmp_path / "tiny")
    result = _convert(f"--ct2_dir={folder}", f"--out={out}")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "quiet on success"
    model_file = read_model_file(f"{folder}/model.bin")
    assert f"{len(model_file.variables)} variables and 1 alias(es)" in result.stdout
    assert "vocabulary 51864" in result.stdout
    assert sorted(os.listdir(out)) == ["config.json", "generation_config.json", "model.safetensors",
                                       "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"]
    model = WhisperForConditionalGeneration.from_pretrained(out).eval()
    features = torch.randn(1, 80, 2 * SOURCE_POSITIONS, generator=torch.Generator().manual_seed(2))
    tokens = torch.tensor([[50257, 50362, 1000]])
    with torch.no_grad():
        expected = original(input_features=features, decoder_input_ids=tokens).logits
        got = model(input_features=features, decoder_input_ids=tokens).logits
    assert (got - expected).abs().max() <= 0.02 * expected.abs().max()  # float16 storage
    assert GenerationConfig.from_pretrained(out).alignment_heads == [[1, 0], [1, 1]]
    extractor = WhisperFeatureExtractor.from_pretrained(out)
    assert (extractor.feature_size, extractor.chunk_length, extractor.nb_max_frames) == (80, 1, 2 * SOURCE_POSITIONS)
    tokenizer = AutoTokenizer.from_pretrained(out)
    ids = tokenizer(" Hello world.", add_special_tokens=False).input_ids
    with_times = [50257, 50362 + 1] + ids + [50362 + 1 + 60, 50256]
    assert tokenizer.decode(with_times, skip_special_tokens=True) == " Hello world."
    assert tokenizer.decode(with_times, decode_with_timestamps=True) == (
        "<|startoftranscript|><|0.00|> Hello world.<|1.20|><|endoftext|>")


def _ct2_copy(folder: str, tmp_path) -> str:
    copy = str(tmp_path / "copy")
    shutil.copytree(folder, copy)
    return copy


def test_damaged_directories_are_refused(ct2_dir, tmp_path):
    folder, _ = ct2_dir
    out = f"--out={tmp_path / 'out'}"
    result = _convert(f"--ct2_dir={tmp_path}", out)
    assert result.returncode == 1 and "has no model.bin (not a CTranslate2 model directory)" in result.stderr
    damaged = _ct2_copy(folder, tmp_path)
    with open(f"{damaged}/model.bin", "r+b") as file:
        file.truncate(os.path.getsize(f"{damaged}/model.bin") - 100)
    result = _convert(f"--ct2_dir={damaged}", out)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"convert: error: {damaged}/model.bin: truncated: ")
    assert "Traceback" not in result.stderr
    assert not os.path.exists(tmp_path / "out"), "nothing written"


def test_a_vocabulary_that_disagrees_with_the_tokenizer(ct2_dir, tmp_path):
    folder, _ = ct2_dir
    damaged = _ct2_copy(folder, tmp_path)
    with open(f"{damaged}/vocabulary.json", encoding="utf-8") as file:
        tokens = json.load(file)
    tokens[50400] = "<|9.99|>"
    with open(f"{damaged}/vocabulary.json", "w", encoding="utf-8") as file:
        json.dump(tokens, file)
    with pytest.raises(TokenizerError, match=r"the vocabulary's token 50400 is '<\|9.99\|>'; past tokenizer.json's "
                                             r"50363 tokens only the timestamps"):
        build_model(damaged)
    os.remove(f"{damaged}/tokenizer.json")
    with pytest.raises(TokenizerError, match="has no tokenizer.json"):
        build_model(damaged)


if __name__ == "__main__":
    testing.main(__file__)
