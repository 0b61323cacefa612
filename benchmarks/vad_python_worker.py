"""One Python engine of vad_bench: silero's own model in PyTorch (the jit) or in ONNX
Runtime (silero_vad.onnx through silero's OnnxWrapper), as silero's utility drives it:
one call per 32 ms chunk from a Python loop, one thread.

    vad_python_worker.py --engine=jit|onnx --audio=speech.wav

Prints one JSON line: load_ms, chunks, run_s (the chunk loop), us_per_chunk, the
probabilities, and the segments (get_speech_timestamps' defaults, in samples).
"""

import argparse
import json
import time
import wave

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True, choices=["jit", "onnx"])
    parser.add_argument("--audio", required=True)
    args = parser.parse_args()

    import torch
    import silero_vad

    torch.set_num_threads(1)
    with wave.open(args.audio) as w:
        rate = w.getframerate()
        audio = torch.from_numpy(np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0)
    started = time.perf_counter()
    model = silero_vad.load_silero_vad(onnx=args.engine == "onnx")  # OnnxWrapper: 1 intra- and inter-op thread
    load_ms = 1000 * (time.perf_counter() - started)

    # get_speech_timestamps' own loop (silero_vad/utils_vad.py), timed.
    window = 512 if rate == 16000 else 256
    probabilities = []
    model.reset_states()
    started = time.perf_counter()
    with torch.no_grad():
        for start in range(0, len(audio), window):
            chunk = audio[start:start + window]
            if len(chunk) < window:
                chunk = torch.nn.functional.pad(chunk, (0, window - len(chunk)))
            probabilities.append(model(chunk, rate).item())
    run_s = time.perf_counter() - started
    segments = silero_vad.get_speech_timestamps_from_probs(probabilities, sampling_rate=rate,
                                                           audio_length_samples=len(audio))
    print(json.dumps({
        "load_ms": load_ms,
        "chunks": len(probabilities),
        "run_s": run_s,
        "us_per_chunk": 1e6 * run_s / len(probabilities),
        "probabilities": probabilities,
        "segments": [[s["start"], s["end"]] for s in segments],
    }))


if __name__ == "__main__":
    main()
