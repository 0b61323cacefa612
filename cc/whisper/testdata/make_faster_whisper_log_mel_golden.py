"""Golden data for //cc/whisper:log_mel_test's ComputeAll and Window: faster-whisper's
FeatureExtractor (the whole file's log-mel, one clamp) and its windows
(pad_or_trim(features[:, seek:seek + size]), as its seek loop cuts them), on speech made
here (tests/vad's espeak-ng recording), on silence and on inputs shorter than n_fft.

    make_faster_whisper_log_mel_golden.py SPEECH_WAV OUT_FILE

OUT_FILE holds cases, each: int64 n_mels, sample count, frames, window count; the
samples (float32, as faster-whisper's decode_audio gives them: 16-bit PCM / 32768); the
features (float32, [n_mels, frames]); then each window: int64 seek, size, and its
features (float32, [n_mels, 3000]).
"""

import struct
import sys
import wave

import numpy as np

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()

from faster_whisper.audio import pad_or_trim  # noqa: E402
from faster_whisper.feature_extractor import FeatureExtractor  # noqa: E402


def _read(path: str) -> np.ndarray:
    with wave.open(path, "rb") as f:
        if f.getframerate() != 16000 or f.getnchannels() != 1 or f.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16 kHz mono 16-bit PCM")
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def _case(out, samples: np.ndarray, n_mels: int, windows) -> None:
    """windows: (seek, size) pairs, or None for the first as the seek loop cuts it."""
    features = FeatureExtractor(feature_size=n_mels)(samples)  # WhisperModel.transcribe's call
    assert features.dtype == np.float32 and features.shape == (n_mels, (len(samples) + 160) // 160), features.shape
    content_frames = features.shape[-1] - 1  # transcribe.py's
    windows = [(0, min(3000, content_frames)) if w is None else w for w in windows]
    out.write(struct.pack("<4q", n_mels, len(samples), features.shape[-1], len(windows)))
    out.write(samples.astype("<f4").tobytes())
    out.write(features.astype("<f4").tobytes())
    for seek, size in windows:
        window = pad_or_trim(features[:, seek : seek + size])
        assert window.shape == (n_mels, 3000), window.shape
        out.write(struct.pack("<2q", seek, size))
        out.write(window.astype("<f4").tobytes())


def main(argv: list[str]) -> int:
    speech = _read(argv[0])  # 9.9 s, starting with 1 s of silence
    # 39.6 s: the speech three times at 1/20 of its level, then as it is. The loud end
    # sets the one clamp of the whole file: the first windows' floor is its, not theirs.
    long = np.concatenate([speech * np.float32(0.05)] * 3 + [speech])
    with open(argv[1], "wb") as out:
        _case(out, speech, 80, [None])                            # the whole file, one window
        _case(out, speech[16000:100000], 80, [None, (100, 3000)])  # 5.25 s, shorter than a window
        content_frames = (len(long) + 160) // 160 - 1
        _case(out, long, 80, [(0, 3000), (3000, content_frames - 3000), (1234, 3000)])  # 3 windows
        _case(out, np.zeros(48000, np.float32), 80, [None])       # silence: the floor everywhere
        _case(out, speech[20000:20300], 80, [(0, 2)])              # shorter than n_fft: 2 frames
        _case(out, speech[20000:20030], 80, [(0, 1)])              # padded signal < the reflect pad
        _case(out, speech[:0], 80, [(0, 1)])                       # nothing: 160 zeros, 1 frame
        _case(out, speech[16000:100000], 128, [None])             # large-v3's 128 mels
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
