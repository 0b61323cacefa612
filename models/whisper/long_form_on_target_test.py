"""transcribe's long-form decoding on another target (aarch64 Linux under qemu) gives the
x86_64 build's segments on the same program and recording, with word timestamps: the
same tokens, times, windows and words, scores within float32 noise (the targets'
XNNPACK kernels differ).

    long_form_on_target_test.py --launcher=RLOCATION
"""

import argparse
import json
import subprocess
import sys

from runfiles import runfiles

from models.whisper.testdata import speech_files

_RUNFILES = runfiles.Create()
HOST_TRANSCRIBE = _RUNFILES.Rlocation("pteforge/cc/tools/transcribe")
PROGRAM = _RUNFILES.Rlocation("pteforge/models/whisper/tiny_long.pte")


def run(*command: str) -> dict:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", required=True)
    args = parser.parse_args()
    flags = [f"--model={PROGRAM}", "--quiet", "--threads=1", "--beams=1", "--temperature=0", "--format=json",
             "--word_timestamps", speech_files.long_recording()]
    host, target = run(HOST_TRANSCRIBE, *flags), run(_RUNFILES.Rlocation(args.launcher), *flags)
    mine, theirs = target["segments"], host["segments"]
    if len({s["seek"] for s in theirs}) < 3:
        sys.exit(f"FAILED: fewer than 3 windows on x86_64: {theirs}")
    for field in ("tokens", "seek", "start", "end", "text"):
        if [s[field] for s in mine] != [s[field] for s in theirs]:
            sys.exit(f"FAILED: the segments' {field} differ:\n{theirs}\n---\n{mine}")
    for a, b in zip(mine, theirs):
        for field in ("avg_logprob", "no_speech_prob"):
            if abs(a[field] - b[field]) > 1e-4:
                sys.exit(f"FAILED: {field} {a[field]} against x86_64's {b[field]}")
        words = [(w["word"], w["start"], w["end"]) for w in a["words"]]
        if words != [(w["word"], w["start"], w["end"]) for w in b["words"]]:
            sys.exit(f"FAILED: segment {b['id']}'s words differ:\n{b['words']}\n---\n{a['words']}")
        for mine_word, their_word in zip(a["words"], b["words"]):
            if abs(mine_word["probability"] - their_word["probability"]) > 1e-4:
                sys.exit(f"FAILED: word {mine_word} against x86_64's {their_word}")
    count = sum(len(s["words"]) for s in mine)
    print(f"{len(mine)} segments in {len({s['seek'] for s in mine})} windows and {count} words equal x86_64's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
