"""Finding and loading OPUS-MT checkpoints: the search order, and clear errors for
incomplete directories."""

import os

from models.opus import checkpoint
from pteforge.support import testing

import pytest


def _fake_checkpoint(directory, files=("config.json", "model.safetensors", "source.spm", "target.spm", "vocab.json")):
    os.makedirs(directory, exist_ok=True)
    for name in files:
        with open(os.path.join(directory, name), "w") as f:
            f.write("{}")
    return str(directory)


def test_explicit_path_wins_then_environment_then_hf_cache(tmp_path, monkeypatch):
    explicit = _fake_checkpoint(tmp_path / "explicit")
    from_env = _fake_checkpoint(tmp_path / "env")
    hub = tmp_path / "hf" / "hub" / "models--Helsinki-NLP--opus-mt-en-fr"
    cached = _fake_checkpoint(hub / "snapshots" / "abc123")
    (hub / "refs").mkdir(parents=True)
    (hub / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv(checkpoint.CHECKPOINT_ENV, raising=False)
    assert checkpoint.find(None) == cached
    monkeypatch.setenv(checkpoint.CHECKPOINT_ENV, from_env)
    assert checkpoint.find(None) == from_env
    assert checkpoint.find(explicit) == explicit
    # A file inside the checkpoint names its directory (what Bazel's $(execpath) gives).
    assert checkpoint.find(os.path.join(explicit, "config.json")) == explicit


def test_nothing_found(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv(checkpoint.CHECKPOINT_ENV, raising=False)
    assert checkpoint.find(None) is None


def test_missing_files_are_named(tmp_path):
    incomplete = _fake_checkpoint(tmp_path / "ckpt", files=("config.json", "vocab.json"))
    with pytest.raises(checkpoint.CheckpointError, match=r"lacks source.spm, target.spm, model.safetensors or pytorch_model.bin"):
        checkpoint.check_files(incomplete)
    with pytest.raises(checkpoint.CheckpointError, match="is not a directory"):
        checkpoint.check_files(str(tmp_path / "nowhere"))


if __name__ == "__main__":
    testing.main(__file__)
