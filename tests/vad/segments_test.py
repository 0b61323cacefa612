"""The C++ segment logic (cc/vad/segments.h) against silero's own get_speech_timestamps
on thousands of probability sequences, with every parameter varied: the utility runs
with a stand-in model that returns the sequence's probabilities (float32, as the real
model's), on silent audio of the sequence's length; the C++ side gets the same cases
(//cc/vad:segments_from_probs, which pushes the probabilities one at a time as a
stream does). Segments must be equal, in samples and in seconds (as printed).
"""

import random
import subprocess

import numpy as np
import silero_vad
import torch
from runfiles import runfiles

from pteforge.support import testing
from tests.vad import audio_files

CASES = 2500
SEED = 22


def _sequence(rng: random.Random, count: int, threshold: float) -> list[float]:
    """Probabilities shaped like speech: runs of high and low values, some hovering at
    the thresholds, some long speech (max_speech cuts), some noise."""
    kind = rng.choice(["runs", "runs", "near", "noise", "long"])
    values = []
    while len(values) < count:
        if kind == "noise":
            values.append(rng.random())
            continue
        if kind == "near":
            values.append(min(1.0, max(0.0, threshold + rng.choice([-0.2, -0.15, -0.05, 0.0, 0.0, 0.05]))))
            continue
        speech = rng.random() < 0.5
        length = rng.randint(1, 80 if kind == "long" and speech else 25)
        for _ in range(length):
            values.append(rng.uniform(0.6, 1.0) if speech else rng.uniform(0.0, 0.4))
        if kind == "long" and rng.random() < 0.3:  # a short dip inside speech
            values += [rng.uniform(0.0, 0.3)] * rng.randint(1, 6)
    # float32, as the model gives them (the utility sees .item() of a float32 tensor).
    return [float(v) for v in np.float32(values[:count])]


def _case(rng: random.Random) -> dict:
    rate = rng.choice([16000, 8000])
    window = 512 if rate == 16000 else 256
    threshold = rng.choice([0.5, 0.5, rng.uniform(0.05, 0.95)])
    count = rng.randint(0, 300)
    parameters = {
        "threshold": threshold,
        "neg_threshold": rng.choice([None, None, rng.uniform(0.0, threshold)]),
        "min_speech_duration_ms": rng.choice([250, 0, rng.randint(0, 1000)]),
        "max_speech_duration_s": rng.choice([float("inf"), float("inf"), rng.uniform(0.2, 6.0)]),
        "min_silence_duration_ms": rng.choice([100, 0, rng.randint(0, 600)]),
        "speech_pad_ms": rng.choice([30, 0, rng.randint(0, 250)]),
        "min_silence_at_max_speech": rng.choice([98, 0, rng.randint(0, 400)]),
        "use_max_poss_sil_at_max_speech": rng.choice([True, False]),
    }
    return {
        "rate": rate,
        "samples": 0 if count == 0 else rng.randint((count - 1) * window + 1, count * window),
        "resolution": rng.choice([1, 1, 0, 2, 3]),
        "probabilities": _sequence(rng, count, threshold),
        "parameters": parameters,
    }


def _line(case: dict) -> str:
    p = case["parameters"]
    numbers = [case["rate"], case["samples"], repr(p["threshold"]),
               "nan" if p["neg_threshold"] is None else repr(p["neg_threshold"]), p["min_speech_duration_ms"],
               repr(p["max_speech_duration_s"]), p["min_silence_duration_ms"], p["speech_pad_ms"],
               p["min_silence_at_max_speech"], int(p["use_max_poss_sil_at_max_speech"]), case["resolution"]]
    return " ".join(map(str, numbers + [repr(v) for v in case["probabilities"]]))


def _silero(case: dict) -> str:
    audio = torch.zeros(case["samples"])
    common = dict(sampling_rate=case["rate"], **case["parameters"])
    samples = silero_vad.get_speech_timestamps(audio, audio_files.Recorded(case["probabilities"]), **common)
    seconds = silero_vad.get_speech_timestamps(audio, audio_files.Recorded(case["probabilities"]), return_seconds=True,
                                               time_resolution=case["resolution"], **common)
    as_samples = "".join(f" {s['start']} {s['end']}" for s in samples)
    as_seconds = "".join(f" {s['start']!r} {s['end']!r}" for s in seconds)
    return f"{as_samples} |{as_seconds}"


def test_segments_equal_silero_utility_on_many_sequences():
    rng = random.Random(SEED)
    cases = [_case(rng) for _ in range(CASES)]
    tool = runfiles.Create().Rlocation("pteforge/cc/vad/segments_from_probs")
    result = subprocess.run([tool], input="".join(_line(c) + "\n" for c in cases), capture_output=True, text=True,
                            check=True)
    ours = result.stdout.splitlines()
    assert len(ours) == len(cases)
    theirs = [_silero(case) for case in cases]
    mismatches = [(i, want, got) for i, (want, got) in enumerate(zip(theirs, ours)) if want != got]
    for i, want, got in mismatches[:5]:
        print(f"case {i}: {cases[i]['parameters']} rate {cases[i]['rate']} samples {cases[i]['samples']}\n"
              f"  silero: {want}\n  ours:   {got}")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} cases differ"
    # The cases exercise what they should: segments, max-speech cuts, padding splits.
    segments = sum(line.split("|")[0].count(" ") // 2 for line in ours)
    assert segments > 5 * CASES // 4


if __name__ == "__main__":
    testing.main(__file__)
