"""The Whisper test speech (models/whisper/testdata:speech, made by make_speech.sh) and
what each clip says (sentences.txt), for the tests."""

from __future__ import annotations

import wave

import numpy as np
from runfiles import runfiles

_ROOT = "pteforge/models/whisper/testdata"


def _rlocation(name: str) -> str:
    return runfiles.Create().Rlocation(f"{_ROOT}/{name}")


def sentences() -> list[str]:
    """What the clips say, clip 0 first."""
    with open(_rlocation("sentences.txt"), encoding="utf-8") as file:
        return [line.split("|", 1)[1].strip() for line in file if line.strip()]


def clip(index: int) -> str:
    """The path of clip `index` (16 kHz mono 16-bit WAV)."""
    return _rlocation(f"speech/{index:02d}.wav")


def samples(index: int) -> np.ndarray:
    """Clip `index` as float32 samples in [-1, 1)."""
    with wave.open(clip(index)) as file:
        return np.frombuffer(file.readframes(file.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
