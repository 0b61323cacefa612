"""The VAD test audio (tests/vad:audio, made by make_audio.sh) and silero's own answers
for it: the helpers every VAD test shares.

The expected segments are never stored: silero_segments() runs silero's utility
(`silero_vad.get_speech_timestamps` with `load_silero_vad()`, the package the lock pins)
on the audio when the test runs.
"""

from __future__ import annotations

import os
import wave

import numpy as np
import torch
from runfiles import runfiles

def path(name: str) -> str:
    """The runfiles path of a test file (e.g. "en_us_16k.wav")."""
    return runfiles.Create().Rlocation(f"pteforge/tests/vad/audio/{name}")


def names() -> list[str]:
    """Every test file (what make_audio.sh writes: tests/vad:audio), by name."""
    folder = os.path.dirname(path("en_us_16k.wav"))
    return sorted(name for name in os.listdir(folder) if name.endswith(".wav"))


def read_wav(file: str) -> tuple[torch.Tensor, int]:
    """A 16-bit mono WAV as float32 samples (x / 32768, as torchaudio reads it) and its rate."""
    with wave.open(file) as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise ValueError(f"{file}: expected 16-bit mono")
        frames = w.readframes(w.getnframes())
        rate = w.getframerate()
    return torch.from_numpy(np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0), rate


_MODEL = None


def silero_model():
    """silero's own model, as users load it (load_silero_vad(): the jit), loaded once."""
    global _MODEL
    if _MODEL is None:
        import silero_vad

        _MODEL = silero_vad.load_silero_vad()
    return _MODEL


def silero_segments(audio: torch.Tensor, rate: int, model=None, **parameters) -> list[dict]:
    """get_speech_timestamps(audio, model, sampling_rate=rate, **parameters)."""
    import silero_vad

    return silero_vad.get_speech_timestamps(audio, model or silero_model(), sampling_rate=rate, **parameters)


def silero_probabilities(audio: torch.Tensor, rate: int) -> list[float]:
    """The jit's probability for every chunk, from a fresh state, chunks cut and the
    last one padded as get_speech_timestamps does."""
    model = silero_model()
    model.reset_states()
    with torch.no_grad():
        return [model(chunk[0], rate).item() for chunk in chunks(audio, rate)]


class Recorded:
    """A stand-in model for silero's utility: returns recorded probabilities, one per
    call, as float32 like the real model's."""

    def __init__(self, probabilities: list[float]):
        self.probabilities = probabilities
        self.calls = 0

    def reset_states(self):
        self.calls = 0

    def __call__(self, chunk, rate):
        self.calls += 1
        return torch.tensor([[self.probabilities[self.calls - 1]]], dtype=torch.float32)


def chunks(audio: torch.Tensor, rate: int) -> list[torch.Tensor]:
    """The audio's chunks as [1, size] tensors, the last one zero-padded."""
    size = 512 if rate == 16000 else 256
    padded = torch.nn.functional.pad(audio, (0, -len(audio) % size))
    return [padded[i:i + size].unsqueeze(0) for i in range(0, len(padded), size)]


def as_lines(segments: list[dict]) -> list[str]:
    """Segments as the vad tool prints them ("start end"; Python's repr of each number)."""
    return [f"{segment['start']!r} {segment['end']!r}" for segment in segments]
