"""The C++ translate tool on another target gives the x86_64 one's output on the same
seq2seq programs: text and token ids, greedy and with 4 beams, T5's task prefix and
M2M100's target-language token included.

    translate_on_target_test.py --launcher=RLOCATION --family=FAMILY --backend=BACKEND

The launcher runs translate under the target's emulator (bazel/on_target_test.bzl).
"""

import argparse
import subprocess
import sys

from runfiles import runfiles

_RUNFILES = runfiles.Create()
HOST_TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
TEXTS = ["The weather is nice today.", "Hello", "Where is the station? It is near the old bridge."]
FAMILY_FLAGS = {"t5": ["--prefix=translate: "], "m2m_100": ["--target_token=__en__"]}


def run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return result.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--family", required=True)
    parser.add_argument("--backend", required=True)
    args = parser.parse_args()
    program = _RUNFILES.Rlocation(f"pteforge/models/seq2seq/tiny_{args.family}_{args.backend}.pte")
    launcher = _RUNFILES.Rlocation(args.launcher)
    for beams in (1, 4):
        flags = [f"--model={program}", "--quiet", "--print_ids", f"--beams={beams}", "--max_length=16",
                 *FAMILY_FLAGS.get(args.family, []), *TEXTS]
        host, target = run(HOST_TRANSLATE, *flags), run(launcher, *flags)
        print(target, end="")
        if host != target:
            sys.exit(f"FAILED: {beams} beam(s): the target's output differs from x86_64's:\n{host}\n---\n{target}")
        if "output ids:" not in host:
            sys.exit(f"FAILED: no ids in the output:\n{host}")
    print(f"{args.family} ({args.backend}): the target's text and ids equal x86_64's, greedy and 4 beams")
    return 0


if __name__ == "__main__":
    sys.exit(main())
