"""The generate tool on another target gives the tokens of the x86_64 one on the same
.pte: greedy and seeded sampling, token ids in and out, and (where the target has the
tokenizer) text.

    generate_on_target_test.py --launcher=RLOCATION --program=RLOCATION [--text] [ARGS ...]

The launcher runs generate (or a microcontroller image of it, which takes its prompts
from a file: --input) under the target's emulator (bazel/on_target_test.bzl).
Every prompt is run greedy, then sampled with each seed; ARGS are added to every run.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

from runfiles import runfiles

from pteforge.llm import load_causal_lm

_RUNFILES = runfiles.Create()
HOST_GENERATE = _RUNFILES.Rlocation("pteforge/cc/tools/generate")
SEEDS = (1, 2)


def run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return result.stdout


def prompts(vocab: int) -> list[list[int]]:
    rng = random.Random(0)
    return [[rng.randrange(vocab) for _ in range(length)] for length in (1, 6, 21)]


def on_device(launcher: str, modes: list[list[str]], prompt_ids: list[list[int]], image: bool) -> list[str]:
    """Generated ids per mode and prompt, one line each, from the target."""
    lines = []
    for mode in modes:
        if image:  # one run per mode, every prompt in the input file
            with tempfile.NamedTemporaryFile("w", suffix=".txt", dir=os.environ.get("TEST_TMPDIR"),
                                             delete=False) as f:
                f.write("".join(" ".join(map(str, p)) + "\n" for p in prompt_ids))
            output = run(launcher, f"--input={f.name}", *mode)
            print(output, end="")
            lines += [line[len("ids: "):].strip() for line in output.splitlines() if line.startswith("ids:")]
        else:
            for prompt in prompt_ids:
                lines.append(run(launcher, *mode, f"--ids={' '.join(map(str, prompt))}").strip())
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--image", action="store_true", help="the launcher runs a microcontroller image")
    parser.add_argument("--text", action="store_true", help="also compare a text prompt's output")
    args, extra = parser.parse_known_args()
    launcher, program = _RUNFILES.Rlocation(args.launcher), _RUNFILES.Rlocation(args.program)
    prompt_ids = prompts(load_causal_lm(program).vocab_size)
    modes = [["--greedy"]] + [["--sample", f"--seed={seed}"] for seed in SEEDS]
    modes = [mode + extra for mode in modes]
    host = [run(HOST_GENERATE, f"--model={program}", *mode, f"--ids={' '.join(map(str, p))}").strip()
            for mode in modes for p in prompt_ids]
    device_modes = modes if args.image else [[f"--model={program}", *mode] for mode in modes]
    device = on_device(launcher, device_modes, prompt_ids, args.image)
    failures = 0
    for i, (expected, got) in enumerate(zip(host, device + [None] * len(host))):
        mode, prompt = modes[i // len(prompt_ids)], prompt_ids[i % len(prompt_ids)]
        same = expected == got
        failures += not same
        print(f"{'same' if same else 'DIFFERENT'}: {' '.join(mode)}, prompt of {len(prompt)} tokens: x86_64 [{expected}]"
              + ("" if same else f", target [{got}]"))
    if args.text:
        text = "The weather is nice today."
        expected, got = (run(tool, f"--model={program}", "--greedy", text) for tool in (HOST_GENERATE, launcher))
        failures += expected != got
        print(f"text: x86_64 {expected!r}, target {got!r}")
    print(f"{len(host) + args.text - failures} of {len(host) + args.text} generations equal x86_64's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
