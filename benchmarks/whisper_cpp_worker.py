"""transcribe_bench's whisper.cpp engine, run by tools/whisper_cpp/setup's venv's python
(pywhispercpp 1.5.1: whisper.cpp 1.8.5) through peak_rss.py:

    whisper_cpp_worker.py <ggml model> <16 kHz mono WAV> <threads> <beams>

whisper.cpp's long form (whisper_full) with the options set as close to faster-whisper's
defaults as whisper.cpp has them: the previous text as the prompt (no_context=False:
pywhispercpp's default is True), beam search with <beams> beams (1: greedy), best_of 5 at
the fallback temperatures 0.2, 0.4, ... 1.0, log-probability threshold -1, no-speech
threshold 0.6, non-speech tokens suppressed (faster-whisper's suppress_tokens=[-1]),
timestamps on, language "en". What it cannot match: whisper.cpp's
fallback tests the tokens' entropy (entropy_thold 2.4) where faster-whisper tests the
zlib compression ratio (2.4), and its windows and prompt follow its own code. The WAV is
read with the wave module (pywhispercpp's reader would call ffmpeg for anything else).

Prints one JSON line on stdout: load_s, wall_s (whisper_full on the samples), text,
segments ([start, end, text] in seconds), pywhispercpp (its version) and the
system info ggml reports (its CPU features).
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import time
import wave


def read_wav(path: str):
    import numpy as np

    with wave.open(path, "rb") as wav:
        if (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) != (1, 2, 16000):
            raise ValueError(f"{path}: not 16 kHz mono 16-bit PCM")
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    return samples.astype(np.float32) / 32768.0


def main(argv: list[str]) -> int:
    model_path, wav_path, threads, beams = argv[1], argv[2], int(argv[3]), int(argv[4])
    from pywhispercpp.model import Model

    audio = read_wav(wav_path)
    options = dict(n_threads=threads, no_context=False, language="en", print_progress=False, print_realtime=False,
                   print_timestamps=False, temperature=0.0, temperature_inc=0.2, logprob_thold=-1.0,
                   no_speech_thold=0.6, entropy_thold=2.4, suppress_nst=True, greedy={"best_of": 5},
                   beam_search={"beam_size": beams, "patience": 1.0})
    started = time.perf_counter()
    model = Model(model_path, params_sampling_strategy=0 if beams == 1 else 1, redirect_whispercpp_logs_to=None,
                  **options)
    loaded = time.perf_counter()
    segments = model.transcribe(audio)
    finished = time.perf_counter()
    print(json.dumps({
        "load_s": loaded - started, "wall_s": finished - loaded,
        "text": "".join(segment.text for segment in segments),
        # pywhispercpp's t0 / t1 are in centiseconds (whisper.cpp's units).
        "segments": [[segment.t0 / 100, segment.t1 / 100, segment.text] for segment in segments],
        "pywhispercpp": importlib.metadata.version("pywhispercpp"),
        "system_info": model.system_info() if hasattr(model, "system_info") else None,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
