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

# What make_audio.sh writes (its genrule's outs).
FILES = (
    "de_16k_noisy.wav",
    "en_gb_8k.wav",
    "en_us_16k.wav",
    "es_8k.wav",
    "fr_8k_noisy.wav",
    "long_16k.wav",
    "noise_8k.wav",
    "pt_16k.wav",
    "short_16k.wav",
    "silence_16k.wav",
)


def path(name: str) -> str:
    """The runfiles path of one of FILES."""
    return runfiles.Create().Rlocation(f"pteforge/tests/vad/audio/{name}")


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
    size = 512 if rate == 16000 else 256
    probabilities = []
    with torch.no_grad():
        for start in range(0, len(audio), size):
            chunk = audio[start:start + size]
            if len(chunk) < size:
                chunk = torch.nn.functional.pad(chunk, (0, size - len(chunk)))
            probabilities.append(model(chunk, rate).item())
    return probabilities


def chunks(audio: torch.Tensor, rate: int) -> list[torch.Tensor]:
    """The audio's chunks as [1, size] tensors, the last one zero-padded."""
    size = 512 if rate == 16000 else 256
    padded = torch.nn.functional.pad(audio, (0, -len(audio) % size))
    return [padded[i:i + size].unsqueeze(0) for i in range(0, len(padded), size)]


def as_lines(segments: list[dict]) -> list[str]:
    """Segments as the vad tool prints them ("start end"; Python's repr of each number)."""
    return [f"{segment['start']!r} {segment['end']!r}" for segment in segments]


def existing(names=FILES) -> list[str]:
    """Paths of the named files, checked to exist."""
    paths = [path(name) for name in names]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError(f"test audio missing: {missing}")
    return paths
