"""transcribe_bench's transformers engine, in its own process (through peak_rss.py):

    whisper_hf_worker.py <transformers folder> <16 kHz WAV> <threads> <beams>

transformers' own long-form transcription, eager PyTorch float32, torch.set_num_threads:
WhisperFeatureExtractor on the whole file (truncation=False, padding="longest",
return_attention_mask=True: more than 30 s of features selects generate()'s long-form
mode), then WhisperForConditionalGeneration.generate(..., return_timestamps=True,
condition_on_prev_tokens=True, temperature=(0.0, 0.2, ..., 1.0),
compression_ratio_threshold=1.35, logprob_threshold=-1.0, no_speech_threshold=0.6,
num_beams=beams, return_segments=True): openai-whisper's algorithm as transformers has
it. 1.35, not faster-whisper's 2.4: transformers compresses the token ids (two bytes
each), not the text, and its docs give 1.35 as the matching value. Prints one JSON line
on stdout: load_s, wall_s (features + generate + decoding the text), text, segments.
"""

from __future__ import annotations

import json
import sys
import time
import wave

from pteforge.support.quiet import held_back, quiet_dependencies

quiet_dependencies()

import numpy as np  # noqa: E402
import torch  # noqa: E402


def read_wav(path: str) -> np.ndarray:
    with wave.open(path, "rb") as wav:
        if (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) != (1, 2, 16000):
            raise ValueError(f"{path}: not 16 kHz mono 16-bit PCM")
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    return samples.astype(np.float32) / 32768.0


def main(argv: list[str]) -> int:
    folder, wav, threads, beams = argv[1], argv[2], int(argv[3]), int(argv[4])
    import transformers

    torch.set_num_threads(threads)
    audio = read_wav(wav)
    with held_back():
        started = time.perf_counter()
        processor = transformers.WhisperProcessor.from_pretrained(folder)
        model = transformers.WhisperForConditionalGeneration.from_pretrained(folder).eval()
        loaded = time.perf_counter()
        with torch.inference_mode():
            inputs = processor(audio, sampling_rate=16000, return_tensors="pt", truncation=False, padding="longest",
                               return_attention_mask=True)
            result = model.generate(**inputs, return_timestamps=True, condition_on_prev_tokens=True,
                                    temperature=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), compression_ratio_threshold=1.35,
                                    logprob_threshold=-1.0, no_speech_threshold=0.6, num_beams=beams,
                                    return_segments=True)
        text = processor.batch_decode(result["sequences"], skip_special_tokens=True)[0]
        finished = time.perf_counter()
    print(json.dumps({"load_s": loaded - started, "wall_s": finished - loaded, "text": text,
                      "segments": len(result["segments"][0]), "transformers": transformers.__version__}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
