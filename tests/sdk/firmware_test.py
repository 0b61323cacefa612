"""The out-of-tree firmware (examples/firmware_vad), built against the Cortex-M55 SDK
with Make and pkg-config (and again with CMake and the SDK's toolchain file), not with
Bazel, runs Silero VAD on the emulated board and gives what pteforge's x86_64 vad tool
gives on the same .pte: every chunk's probability within --tolerance, the same speech
segments, and (--silero) silero's own segments.

    firmware_test.py --sdk=<sdk_cortex_m55.tar> --makefile=<examples/firmware_vad/Makefile>
        --vad=<x86_64 vad> --runner=<toolchains/run_on_target.sh> [--tolerance=5e-4]
        [--silero] [--board=...] WAV...

Make's, CMake's and the compiler's output is shown only when a step fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

from tests.vad import audio_files


class Failure(Exception):
    pass


def run(command: list[str], what: str, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    if result.returncode != 0:
        raise Failure(f"{what} failed (exit {result.returncode}): {' '.join(command)}\n"
                      f"{result.stdout[-6000:]}{result.stderr[-6000:]}")
    return result


def split(output: str) -> tuple[list[float], list[str]]:
    lines = output.splitlines()
    return ([float(line.split()[2]) for line in lines if line.startswith("prob ")],
            [line for line in lines if not line.startswith("prob ")])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdk", required=True)
    parser.add_argument("--makefile", required=True)
    parser.add_argument("--vad", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--board", default="m55_1mb_flash_256kb_sram")
    parser.add_argument("--tolerance", type=float, default=5e-4)
    parser.add_argument("--silero", action="store_true", help="also require silero's own segments")
    parser.add_argument("wavs", nargs="+")
    args = parser.parse_args()
    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    try:
        with tarfile.open(args.sdk) as archive:
            archive.extractall(work)
        (root,) = [os.path.join(work, name) for name in os.listdir(work)]
        with open(os.path.join(root, "share/pteforge/sdk.json")) as f:
            sdk = json.load(f)
        if not re.fullmatch(r"[0-9a-f]{40}", sdk["executorch"].get("commit", "")):
            raise Failure(f"sdk.json records no ExecuTorch commit: {sdk['executorch']}")
        (program,) = [entry["file"] for entry in sdk["programs"]]
        program = os.path.join(root, program)
        example = os.path.dirname(os.path.realpath(args.makefile))

        make_build = os.path.join(work, "make")
        run(["make", "-C", example, f"SDK={root}", f"BUILD={make_build}", f"BOARD={args.board}"], "make")
        with open(os.path.join(make_build, "fit.txt")) as f:
            fit = [line.strip() for line in f if line.strip().startswith(("flash:", "SRAM:"))]
        print(f"make: firmware_vad.elf, {'; '.join(fit)} ({args.board})")
        cmake_build = os.path.join(work, "cmake")
        run(["cmake", "-S", example, "-B", cmake_build, f"-Dpteforge_DIR={root}/lib/cmake/pteforge",
             f"-DCMAKE_TOOLCHAIN_FILE={root}/share/pteforge/toolchain.cmake", "-DCMAKE_BUILD_TYPE=MinSizeRel"],
            "cmake (configure)")
        run(["cmake", "--build", cmake_build], "cmake --build")

        for index, name in enumerate(args.wavs):
            wav = audio_files.path(name)
            images = [("make", os.path.join(make_build, "firmware_vad.elf"))]
            if index == 0:
                images.append(("cmake", os.path.join(cmake_build, "firmware_vad.elf")))
            want = run([args.vad, f"--model={program}", "--probs", "--units=samples", wav], "vad").stdout
            host_probs, host_segments = split(want)
            for how, image in images:
                result = run([args.runner, "cortex_m55", image, f"--input={wav}"], f"the {how} firmware")
                probs, segments = split(result.stdout)
                worst = max((abs(a - b) for a, b in zip(probs, host_probs)), default=float("inf"))
                timing = re.search(r"(\d+) ns per chunk; (.*)", result.stderr)
                print(f"{how} firmware, {name}: {len(probs)} chunks, segments {segments}, probabilities within "
                      f"{worst:.1e} of x86_64's{'; ' + timing.group(2) if timing else ''}")
                if len(probs) != len(host_probs) or worst > args.tolerance or segments != host_segments:
                    raise Failure(f"the {how} firmware on {name} differs from the vad tool: {segments} against "
                                  f"{host_segments}, {len(probs)} against {len(host_probs)} chunks, largest "
                                  f"probability difference {worst:.2e} (allowed {args.tolerance})")
            if args.silero:
                audio, rate = audio_files.read_wav(wav)
                expected = audio_files.as_lines(audio_files.silero_segments(audio, rate))
                if host_segments != expected:
                    raise Failure(f"{name}: the firmware's segments {host_segments} are not silero's {expected}")
                print(f"  silero's own segments: the same")
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
