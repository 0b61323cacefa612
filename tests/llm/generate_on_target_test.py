"""The generate tool on another target gives the tokens of the x86_64 one on the same
.pte: greedy and seeded sampling, token ids in and out, and (where the target has the
tokenizer) text and a chat.

    generate_on_target_test.py --launcher=RLOCATION --program=RLOCATION [--text] [--chat]
        [--no_ids] [--greedy_only] [ARGS ...]

The launcher runs generate (or a microcontroller image of it, which takes its prompts
from a file: --input) under the target's emulator (bazel/on_target_test.bzl).
Every prompt is run greedy, then sampled with each seed; ARGS are added to every run.
--chat: a three-turn conversation (--messages, the cache kept between turns), greedy and
sampled with a seed: the same replies and, per turn, the same counts (tokens cached
before it, prefilled, generated, why it stopped; --stats).
--no_ids: not the id prompts (another test has them for this kind of program).
--greedy_only: no sampling, for programs whose logits differ between targets in more than
the last bit: int8 ones, where a last-bit difference that moves a dynamically quantized
activation across a rounding step moves the logits by a step (0.08 seen on the tiny chat
model), which changes a token sampled from a random model's flat distribution.
"""

import argparse
import json
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
CONVERSATION = [{"role": "user", "content": text} for text in (
    "What is the capital of France?", "And what is it famous for?", "Thank you! Summarize that in five words.")]
# What --stats says of each chat turn, timings left out.
TURN_COUNTS = ("turn", "cached_before", "prefilled_tokens", "generated_tokens", "dropped_turns", "stop")


def run_process(*command: str) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return result


def run(*command: str) -> str:
    return run_process(*command).stdout


def chat(tool: str, program: str, messages: str, mode: list[str]) -> tuple[str, list[dict]]:
    """The replies (stdout) and each turn's counts of a --messages chat."""
    result = run_process(tool, f"--model={program}", f"--messages={messages}", "--stats", *mode)
    turns = [json.loads(line) for line in result.stderr.splitlines() if line.startswith('{"turn"')]
    return result.stdout, [{key: turn[key] for key in TURN_COUNTS} for turn in turns]


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
    parser.add_argument("--chat", action="store_true", help="also compare a conversation's replies and counts")
    parser.add_argument("--no_ids", action="store_true", help="skip the id prompts")
    parser.add_argument("--greedy_only", action="store_true", help="do not sample")
    args, extra = parser.parse_known_args()
    launcher, program = _RUNFILES.Rlocation(args.launcher), _RUNFILES.Rlocation(args.program)
    prompt_ids = [] if args.no_ids else prompts(load_causal_lm(program).vocab_size)
    seeds = () if args.greedy_only else SEEDS
    modes = [["--greedy"]] + [["--sample", f"--seed={seed}"] for seed in seeds]
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
    chats = 0
    if args.chat:
        messages = os.path.join(os.environ.get("TEST_TMPDIR", tempfile.gettempdir()), "messages.json")
        with open(messages, "w", encoding="utf-8") as f:
            json.dump(CONVERSATION, f)
        for mode in [["--greedy"]] + [["--sample", f"--seed={seed}"] for seed in seeds[:1]]:
            mode = mode + extra
            expected, got = (chat(tool, program, messages, mode) for tool in (HOST_GENERATE, launcher))
            chats += 1
            # Every turn answered (one line of counts each), and the target's the same.
            same = expected == got and len(expected[1]) == len(CONVERSATION)
            failures += not same
            print(f"{'same' if same else 'DIFFERENT'}: chat {' '.join(mode)}: x86_64 {expected[0]!r} {expected[1]}"
                  + ("" if same else f", target {got[0]!r} {got[1]}"))
    total = len(host) + args.text + chats
    print(f"{total - failures} of {total} generations equal x86_64's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
