"""The arm64 bundle's generate on a chat program it does not carry (the real SmolLM2-135M-
Instruct, 4-bit: 100 MB and minutes of export, so not part of the bundle or of //...),
under qemu-aarch64 with no sysroot, against the x86_64 build on the same program:

    check_bundle_chat.py --bundle=TAR --generate=X86_GENERATE --program=PTE --folder=DIR \\
        --messages=JSON [--quantized] [--max_new_tokens=64]

1. The chat: the bundle's `generate --messages=JSON --stats` answers every turn; its
   first turn prefills as many tokens as x86_64's, and each later turn starts from a
   cache holding the turns before it (cached_before = the previous turn's cached_before
   + prefilled + generated - 1: a reply's last token enters the cache with the next
   turn). Both builds' replies are printed, and where they part, x86_64's two scores
   there.
2. The arithmetic, on the whole conversation: x86_64's conversation (its ids from the
   Python runtime on the same program, whose replies must be the C++ build's) is fed to
   the bundle's pte_run as the chat feeds it (each turn's new tokens in one prefill
   after the cache, then the reply's tokens one by one), and every call's logits must be
   within the program's conformance bound of x86_64's: DYNAMIC_INT8_TOLERANCE for a
   quantized program (--quantized), the float one otherwise.

Replies may part where the logits allow it: with int8 activations quantized at run time,
XNNPACK's arm64 and x86_64 kernels round to different sides of quantization steps, and
on SmolLM2 their logits differ by about as much as either's from eager PyTorch's
(docs/llm.md, section 4); at a near tie that picks another token.

The emulated CPU is qemu's "max" without SME (docs/android.md: with SME on, qemu 7.2
gives wrong results from XNNPACK's int8 kernels). Exit status 0 when both checks pass,
1 when one fails, 2 on bad arguments or without qemu-aarch64.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = "pteforge-arm64"
EMULATOR = "qemu-aarch64 -cpu max,sme=off"
# --stats's per-turn counts (the timings left out).
COUNTS = ("turn", "cached_before", "prefilled_tokens", "generated_tokens", "dropped_turns", "stop")


def run(what: str, command: list[str], cwd: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    start = time.monotonic()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"check_bundle_chat: FAIL: {what} exited with {result.returncode}:\n{result.stderr[-3000:]}")
    print(f"check_bundle_chat: {what} took {time.monotonic() - start:.0f} s", file=sys.stderr)
    return result


def turn_counts(stderr: str) -> list[dict]:
    return [{key: json.loads(line)[key] for key in COUNTS} for line in stderr.splitlines()
            if line.startswith('{"turn"')]


def parting(a: str, b: str) -> int:
    """The first index where a and b differ (the shorter's length if one starts the other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def python_conversation(program: str, folder: str, users: list[str], max_new_tokens: int):
    """x86_64's conversation from the Python runtime: the replies' text and the calls as
    the chat makes them, each (method, ids, the token x86_64 chose after it)."""
    import transformers

    from pteforge.llm import load_causal_lm
    from pteforge.llm.chat import Conversation
    from pteforge.llm.chat_template import derive_chat_format

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    lm = load_causal_lm(program)
    conversation = Conversation(tokenizer, derive_chat_format(tokenizer, folder), None, lm.max_seq_len)
    stops = conversation.stops(list(lm.eos_token_ids))
    calls, logits = [], []

    def generate(ids, limit):
        new = ids[lm.position:]
        step = lm.prefill(new)
        reply = []
        calls.append(["prefill" if len(new) > 1 else "decode_step", new])
        while True:
            logits.append(step)
            reply.append(int(step.argmax()))
            calls[-1].append(reply[-1])
            if reply[-1] in stops or len(reply) == limit:
                return reply
            calls.append(["decode_step", [reply[-1]]])
            step = lm.decode_step(reply[-1])

    lm.reset()
    texts = [conversation.turn(user, generate, max_new_tokens, stops)[1] for user in users]
    return texts, calls, logits, tokenizer


def parse_logits(output: str) -> list[list[float]]:
    return [[float(x) for x in m.group(1).split(",")] for m in re.finditer(r"= \[\[(.*?)\]\]", output, re.S)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--generate", required=True, help="the x86_64 generate")
    parser.add_argument("--program", required=True)
    parser.add_argument("--folder", required=True, help="the model's Hugging Face folder (its tokenizer)")
    parser.add_argument("--messages", required=True)
    parser.add_argument("--quantized", action="store_true", help="the program's activations are quantized")
    parser.add_argument("--max_new_tokens", type=int, default=64)
    args = parser.parse_args()
    if shutil.which("qemu-aarch64") is None:
        print("check_bundle_chat: error: qemu-aarch64 not found (Debian's qemu-user)", file=sys.stderr)
        return 2
    from pteforge.support.spec import DYNAMIC_INT8_TOLERANCE, SCALED_TOLERANCE

    tolerance = DYNAMIC_INT8_TOLERANCE if args.quantized else SCALED_TOLERANCE["xnnpack"]
    program, messages = os.path.abspath(args.program), os.path.abspath(args.messages)
    with open(messages, encoding="utf-8") as f:
        users = [m["content"] for m in json.load(f) if m["role"] == "user"]
    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    with tarfile.open(args.bundle) as tar:
        tar.extractall(work)
    device = os.path.join(work, ROOT)
    env = {k: v for k, v in os.environ.items() if k != "QEMU_LD_PREFIX"}
    env["PTEFORGE_EMULATOR"] = EMULATOR
    failures = []

    # 1. The chat, on both builds.
    flags = [f"--model={program}", f"--messages={messages}", "--stats", f"--max_new_tokens={args.max_new_tokens}"]
    want = run("x86_64's generate", [args.generate, *flags])
    got = run("the bundle's generate", ["sh", "bin/generate", *flags], cwd=device, env=env)
    want_counts, got_counts = turn_counts(want.stderr), turn_counts(got.stderr)
    print(f"x86_64:\n{want.stdout}{want_counts}\narm64 bundle:\n{got.stdout}{got_counts}")
    if len(want_counts) != len(users) or len(got_counts) != len(users):
        failures.append(f"turns answered: x86_64 {len(want_counts)}, the bundle {len(got_counts)}, of {len(users)}")
    elif got_counts[0]["prefilled_tokens"] != want_counts[0]["prefilled_tokens"]:
        failures.append(f"the first turn prefilled {got_counts[0]['prefilled_tokens']} tokens, x86_64 "
                        f"{want_counts[0]['prefilled_tokens']}")
    for before, turn in zip(got_counts, got_counts[1:]):
        kept = before["cached_before"] + before["prefilled_tokens"] + before["generated_tokens"] - 1
        if turn["cached_before"] != kept:
            failures.append(f"turn {turn['turn']} started from {turn['cached_before']} cached tokens, not {kept}")

    # x86_64's conversation in ids; the Python runtime must reply as the C++ build did.
    texts, calls, x86_logits, tokenizer = python_conversation(program, args.folder, users, args.max_new_tokens)
    if "".join(text + "\n" for text in texts) != want.stdout:
        failures.append("the Python runtime's replies are not the x86_64 generate's: the ids below are not its own")
    if got.stdout != want.stdout:
        at = parting(got.stdout, want.stdout)
        print(f"check_bundle_chat: the replies part after {want.stdout[:at][-60:]!r} (character {at})")

    # 2. The arithmetic: x86_64's calls on the bundle's pte_run.
    calls_file = os.path.join(work, "calls.txt")
    with open(calls_file, "w", encoding="utf-8") as f:
        for method, ids, _ in calls:
            f.write(f"{method}(values({','.join(map(str, ids))})[1,{len(ids)}]:int64)\n")
    output = run("the bundle's pte_run", ["sh", "bin/pte_run", f"--model={program}", f"--calls={calls_file}",
                                          "--max_print=1000000000"], cwd=device, env=env).stdout
    arm_logits = parse_logits(output)
    if len(arm_logits) != len(calls):
        failures.append(f"pte_run printed {len(arm_logits)} results for {len(calls)} calls")
    import torch

    worst, same, partings = 0.0, 0, []
    for index, ((method, ids, chosen), ours, theirs) in enumerate(zip(calls, x86_logits, arm_logits)):
        theirs = torch.tensor(theirs)
        error = (theirs - ours).abs()
        bound = tolerance.atol_for(ours) + tolerance.rtol * ours.abs()
        worst = max(worst, float(error.max()) / tolerance.scale(ours))
        if bool((error > bound).any()):
            failures.append(f"call {index} ({method} of {len(ids)} tokens): logits differ by up to "
                            f"{float(error.max()):.3g} from x86_64's ({tolerance.describe()})")
        if int(theirs.argmax()) == chosen:
            same += 1
        else:
            other = int(theirs.argmax())
            partings.append(f"call {index}: x86_64 {tokenizer.decode([chosen])!r} {float(ours[chosen]):.3f}, "
                            f"the bundle {tokenizer.decode([other])!r} (x86_64's score {float(ours[other]):.3f})")
    print(f"check_bundle_chat: x86_64's {len(calls)} calls on the bundle's pte_run: largest logit difference "
          f"{worst:.3f} x scale (bound: {tolerance.describe()}); the bundle's top token is x86_64's at {same} of "
          f"{len(calls)}" + "".join(f"\n  {p}" for p in partings))
    if failures:
        print("check_bundle_chat: FAIL: " + "\ncheck_bundle_chat: FAIL: ".join(failures), file=sys.stderr)
        return 1
    print("check_bundle_chat: the bundle's chat answers every turn from its kept cache, and its logits over x86_64's "
          "conversation are within the program's bound of x86_64's", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
