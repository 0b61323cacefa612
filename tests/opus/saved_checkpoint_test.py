"""A checkpoint directory saved the standard way (MarianMTModel.save_pretrained plus
MarianTokenizer.save_pretrained), given to the exporter as an argument, gives the ids
Hugging Face gives on it, through the C++ translator; $PTEFORGE_OPUS_CHECKPOINT finds
the same checkpoint."""

import os
import shutil
import subprocess
import sys

import torch
from runfiles import runfiles

from pteforge.support import testing

_RUNFILES = runfiles.Create()
TINY = _RUNFILES.Rlocation("pteforge/models/opus/tiny_random_checkpoint")
PARITY = _RUNFILES.Rlocation("pteforge/tests/opus/opus_parity_test_program")
HF_REFERENCE = _RUNFILES.Rlocation("pteforge/tests/opus/hf_reference.py")
SENTENCES = _RUNFILES.Rlocation("pteforge/tests/opus/sentences.txt")


def _save_checkpoint(directory: str) -> None:
    from transformers import MarianMTModel, MarianTokenizer

    # Other weights than the tiny random checkpoint's, saved by transformers itself.
    model = MarianMTModel.from_pretrained(TINY)
    torch.manual_seed(123)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.05)
    model.save_pretrained(directory)
    MarianTokenizer.from_pretrained(TINY).save_pretrained(directory)
    shutil.copy(os.path.join(TINY, "generation_config.json"), directory)


def _run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, f"{command[:3]} failed:\n{result.stderr[-3000:]}"
    return result


def test_saved_checkpoint_matches_hugging_face(tmp_path, monkeypatch):
    checkpoint = str(tmp_path / "checkpoint")
    _save_checkpoint(checkpoint)
    assert not os.path.exists(os.path.join(checkpoint, "pteforge_random_weights.json"))
    reference = str(tmp_path / "reference.txt")
    _run([sys.executable, HF_REFERENCE, checkpoint, SENTENCES, "24", reference])

    # As an exporter argument...
    pte = str(tmp_path / "by_argument.pte")
    _run([sys.executable, "-m", "pteforge.export", "--model=models.opus.export:make_exporter", f"--out={pte}",
          f"--model_args=checkpoint={checkpoint}", "--model_args=max_source=64", "--model_args=max_target=24"])
    result = _run([PARITY, pte, reference])
    assert "21 of 21 translations equal Hugging Face's token for token" in result.stdout

    # ... and through the environment variable (what --repo_env sets for Bazel): the
    # exporter finds the same checkpoint, trained (the export from there is the one above).
    from models.opus import checkpoint as checkpoint_lib

    monkeypatch.setenv(checkpoint_lib.CHECKPOINT_ENV, checkpoint)
    found = checkpoint_lib.find(None)
    assert os.path.samefile(found, checkpoint)
    assert not checkpoint_lib.load(found).random


if __name__ == "__main__":
    testing.main(__file__)
