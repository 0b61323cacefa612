"""Speech for the VAD benchmarks, made here: espeak-ng sentences (English, British English
and Portuguese voices, the repository's sentence sets) with pauses of 0.3 to 2.5 s, over
low pink noise, 16 kHz mono 16-bit (sox). The same seed gives the same audio.
"""

from __future__ import annotations

import os
import random
import subprocess
import tempfile

from runfiles import runfiles

RATE = 16000


def _path(runfiles_path: str) -> str:
    return runfiles.Create().Rlocation(f"pteforge/{runfiles_path}")


def make_speech(path: str, seconds: float, seed: int = 22) -> float:
    """Speech with pauses over pink noise, about `seconds` long; returns its length."""
    rng = random.Random(seed)
    with open(_path("benchmarks/sentences_en.txt"), encoding="utf-8") as f:
        english = [line.strip() for line in f if line.strip()]
    with open(_path("models/bergamot/corpus/sentences_pt.txt"), encoding="utf-8") as f:
        portuguese = [line.strip() for line in f if line.strip() and len(line) < 120]
    voices = [("en-us", english), ("en-gb", english), ("pt", portuguese)]
    with tempfile.TemporaryDirectory() as work:
        parts, total, i = [], 0.0, 0
        while total < seconds - 3:
            voice, sentences = voices[i % len(voices)]
            raw, part = os.path.join(work, f"{i}.raw.wav"), os.path.join(work, f"{i}.wav")
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(rng.randint(140, 190)), "-w", raw,
                            rng.choice(sentences)], check=True)
            pause = rng.uniform(0.3, 2.5)
            # vol 0.9: espeak-ng's loudest samples would clip after resampling.
            subprocess.run(["sox", "-V1", "-D", raw, "-r", str(RATE), "-c", "1", "-b", "16", part, "vol", "0.9", "pad",
                            "0", f"{pause:.3f}"], check=True)
            total += float(subprocess.run(["soxi", "-D", part], check=True, capture_output=True, text=True).stdout)
            parts.append(part)
            i += 1
        speech = os.path.join(work, "speech.wav")
        subprocess.run(["sox", "-V1", "-D", *parts, speech, "pad", "1", "1"], check=True)
        length = float(subprocess.run(["soxi", "-D", speech], check=True, capture_output=True, text=True).stdout)
        noise = os.path.join(work, "noise.wav")
        subprocess.run(["sox", "-V1", "-R", "-n", "-r", str(RATE), "-c", "1", "-b", "16", noise, "synth",
                        f"{length:.3f}", "pinknoise", "vol", "0.03"], check=True)
        subprocess.run(["sox", "-V1", "-D", "-m", speech, noise, "-b", "16", path], check=True)
    return length
