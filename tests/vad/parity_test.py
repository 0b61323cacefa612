"""Silero VAD on another target gives what the x86_64 vad tool gives on the same .pte:
probabilities within --tolerance (1e-5 by default) and identical segments (and, with
--silero, silero's own segments).

  --target=cortex_m55  the emulated Cortex-M55 (qemu-system-arm -M mps3-an547, run with
                       -icount shift=0): an image that streams the file from the host
                       through its embedded .pte, with static arenas, on a small
                       board's memory; prints the instructions per 32 ms chunk.
  --target=aarch64     the vad tool built for aarch64 Linux, under qemu-aarch64.

    parity_test.py --target=T --launcher=<runfiles path> --program=<the .pte> FILE...
"""

import argparse
import os
import re
import subprocess
import sys

from runfiles import runfiles

from tests.vad import audio_files

VAD = runfiles.Create().Rlocation("pteforge/cc/tools/vad")


def run(command: list[str], env=None) -> tuple[str, str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, env=env)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return result.stdout, result.stderr


def split(output: str) -> tuple[list[float], list[str]]:
    """(probabilities, segment lines) of vad --probs output."""
    lines = output.splitlines()
    return [float(line.split()[2]) for line in lines if line.startswith("prob ")], \
           [line for line in lines if not line.startswith("prob ")]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True, choices=["aarch64", "cortex_m55"])
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--silero", action="store_true", help="also require silero's own segments")
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest |device - x86_64| probability")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    launcher = runfiles.Create().Rlocation(f"pteforge/{args.launcher}")
    program = runfiles.Create().Rlocation(f"pteforge/{args.program}")
    env = dict(os.environ, PTEFORGE_QEMU_ICOUNT="0")  # the image's clock counts instructions
    failures = 0
    for name in args.files:
        path = audio_files.path(name)
        flags = ["--probs", "--units=samples"]
        if args.target == "cortex_m55":  # the image embeds its program
            device, log = run([launcher, f"--input={path}", *flags], env=env)
        else:
            device, log = run([launcher, f"--model={program}", *flags, path])
        host, _ = run([VAD, f"--model={program}", *flags, path])
        (device_probs, device_segments), (host_probs, host_segments) = split(device), split(host)
        difference = max((abs(a - b) for a, b in zip(device_probs, host_probs)), default=float("inf"))
        timing = re.search(r"timing: (\d+) chunks, (\d+) ns in the model, (\d+) ns per chunk", log)
        instructions = f", {int(timing.group(3)) / 1e6:.2f} M instructions per chunk" if timing else ""
        print(f"{name}: {len(device_probs)} chunks, max |{args.target} - x86_64| = {difference:.2e}, "
              f"segments {device_segments}{instructions}")
        if len(device_probs) != len(host_probs) or difference > args.tolerance:
            print(f"  MISMATCH: probabilities differ ({len(device_probs)} vs {len(host_probs)} chunks)")
            failures += 1
        if device_segments != host_segments or not host_segments:
            print(f"  MISMATCH: {args.target} gave {device_segments}, x86_64 {host_segments}")
            failures += 1
        if args.silero:
            audio, rate = audio_files.read_wav(path)
            expected = audio_files.as_lines(audio_files.silero_segments(audio, rate))
            if device_segments != expected:
                print(f"  MISMATCH: silero's utility gives {expected}")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
