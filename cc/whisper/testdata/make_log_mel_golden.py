"""Golden data for //cc/whisper:log_mel_test: transformers' WhisperFeatureExtractor on
speech made here (tests/vad's espeak-ng recording) and on silence.

    make_log_mel_golden.py SPEECH_WAV OUT_FILE

OUT_FILE holds cases, each: int64 n_mels, window_samples, sample count, then the
samples (float32, as the extractor got them: 16-bit PCM / 32768) and the features
(float32, [n_mels, frames]).
"""

import struct
import sys
import wave

import numpy as np

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()

from transformers import WhisperFeatureExtractor  # noqa: E402


def _read(path: str) -> np.ndarray:
    with wave.open(path, "rb") as f:
        if f.getframerate() != 16000 or f.getnchannels() != 1 or f.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16 kHz mono 16-bit PCM")
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def _case(out, samples: np.ndarray, n_mels: int, window_samples: int) -> None:
    extractor = WhisperFeatureExtractor(feature_size=n_mels)
    extractor.n_samples = window_samples  # the tiny test models' windows are shorter than 30 s
    extractor.nb_max_frames = window_samples // extractor.hop_length
    features = extractor(samples, sampling_rate=16000, return_tensors="np").input_features[0].astype(np.float32)
    assert features.shape == (n_mels, window_samples // extractor.hop_length), features.shape
    out.write(struct.pack("<3q", n_mels, window_samples, len(samples)))
    out.write(samples.astype("<f4").tobytes())
    out.write(features.astype("<f4").tobytes())


def main(argv: list[str]) -> int:
    speech = _read(argv[0])
    with open(argv[1], "wb") as out:
        _case(out, speech, 80, 480000)               # Whisper's: 80 mels, 30 s, the speech padded
        # (The recording starts with 1 s of silence.)
        _case(out, speech[20000:40000], 8, 5120)     # the tiny models': 8 mels, 0.32 s, the speech cut
        _case(out, speech[24000:25000], 128, 4800)   # large-v3's 128 mels, a short window, padded
        _case(out, np.zeros(4000, np.float32), 8, 5120)  # silence: the floor everywhere
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
