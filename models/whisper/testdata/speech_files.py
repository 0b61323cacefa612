"""The Whisper test speech (models/whisper/testdata:speech, made by make_speech.sh) and
what each clip says (sentences.txt); the long-form recordings (:long_speech, made by
make_long_speech.sh) and their script (long_script.txt); for the tests and benchmarks."""

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


# The long-form recordings (make_long_speech.sh) by name.
LONG = "long"
LONG_HALF_SILENCE = "long_half_silence"


def long_script() -> list[str]:
    """The sentences the long-form recordings say, in order (long_script.txt)."""
    with open(_rlocation("long_script.txt"), encoding="utf-8") as file:
        return [line.split("|", 2)[2].strip() for line in file if line.strip() and not line.startswith("#")]


def long_text() -> str:
    """What the long-form recordings say, as one text."""
    return " ".join(long_script())


def long_recording(name: str = LONG) -> str:
    """The path of a long-form recording (LONG or LONG_HALF_SILENCE; 16 kHz mono 16-bit WAV)."""
    if name not in (LONG, LONG_HALF_SILENCE):
        raise ValueError(f"no long-form recording {name!r} (there are {LONG!r} and {LONG_HALF_SILENCE!r})")
    return _rlocation(f"long/{name}.wav")
