"""The out-of-tree CMake app (examples/cmake_app), built against an SDK archive with
CMake, not Bazel, gives what pteforge's Bazel-built x86_64 tools give on the same .pte:
run_methods' outputs are pte_run's for the same calls, vad_segments' probabilities and
segments are the vad tool's, text_tools' translations (4 beams, a tiny BART) and text
(greedy, a tiny Qwen2) are translate's and generate's; and succeeding, they print
nothing on stderr.

    cmake_app_test.py --target=x86_64|aarch64|android_arm64_bundle --sdk=<sdk .tar>
        --example=<examples/cmake_app/CMakeLists.txt> --pte_run=<x86_64 pte_run>
        --vad=<x86_64 vad> --translate=<x86_64 translate> --generate=<x86_64 generate>
        --seq2seq=<a pteforge.seq2seq .pte> --llm=<a pteforge.llm .pte>
        --pyproject=<python/pyproject.toml> WAV...

  x86_64                the host; also the pkg-config route (g++ with pkg-config's
                        flags) and a clear error for a component the SDK lacks
  aarch64               Debian's cross compiler through the SDK's toolchain file; the
                        programs run under qemu-aarch64 with the cross sysroot
  android_arm64_bundle  the same, run the bundle's way: the SDK's own glibc loader and
                        libraries only (qemu-aarch64 with no sysroot, an empty
                        environment), and the loader must open nothing outside the SDK

CMake's and the compiler's output is shown only when a step fails.
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

# The calls run_methods and pte_run both make on the stateful program.
CALLS = [("set_cache", "2", "3x8"), ("get_cache", "0", "4x8"), ("accumulate", "1", "4x8"),
         ("set_cache", "-1", "2x8"), ("get_cache", "1", "4x8")]
TOLERANCE = {"x86_64": 0.0, "aarch64": 1e-5, "android_arm64_bundle": 1e-5}
_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)")


class Failure(Exception):
    pass


def run(command: list[str], what: str, env: dict | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, cwd=cwd)
    if result.returncode != 0:
        raise Failure(f"{what} failed (exit {result.returncode}): {' '.join(command)}\n"
                      f"{result.stdout[-6000:]}{result.stderr[-6000:]}")
    return result


def check_sdk_json(root: str, target: str, pyproject: str) -> dict:
    with open(os.path.join(root, "share/pteforge/sdk.json")) as f:
        sdk = json.load(f)
    with open(pyproject) as f:
        version = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    problems = []
    if sdk["version"] != version:
        problems.append(f"version {sdk['version']} is not python/pyproject.toml's {version}")
    if not re.fullmatch(r"[0-9a-f]{40}", sdk["executorch"].get("commit", "")):
        problems.append(f"no ExecuTorch commit recorded: {sdk['executorch']}")
    if not sdk["build"]["compile_flags"] or not sdk["build"]["compiler"]:
        problems.append("no build flags recorded")
    if problems:
        raise Failure("share/pteforge/sdk.json: " + "; ".join(problems))
    return sdk


def configure_and_build(example: str, root: str, build: str, target: str) -> None:
    command = ["cmake", "-S", example, "-B", build, f"-Dpteforge_DIR={root}/lib/cmake/pteforge",
               "-DCMAKE_BUILD_TYPE=Release"]
    if target != "x86_64":
        command.append(f"-DCMAKE_TOOLCHAIN_FILE={root}/share/pteforge/toolchain.cmake")
    run(command, "cmake (configure)")
    run(["cmake", "--build", build, "-j", "2"], "cmake --build")


# qemu's max CPU without SME, as toolchains/run_on_target.sh runs it (docs/android.md).
QEMU_CPU = "max,sme=off"


def device_command(target: str, root: str, log_dir: str) -> tuple[list[str], dict | None]:
    if target == "x86_64":
        return [], None
    if target == "aarch64":
        return ["qemu-aarch64", "-cpu", QEMU_CPU, "-L", "/usr/aarch64-linux-gnu"], None
    lib = os.path.join(root, "lib")
    # No sysroot and an empty environment: only what the SDK brings is there to load.
    return (["qemu-aarch64", "-cpu", QEMU_CPU, "-E", "LD_DEBUG=libs", "-E", f"LD_DEBUG_OUTPUT={log_dir}/ld",
             os.path.join(lib, "ld-linux-aarch64.so.1"), "--inhibit-cache", "--library-path", lib],
            {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})


def quiet(result: subprocess.CompletedProcess, what: str) -> None:
    """A successful run prints its results only: nothing of ExecuTorch's info logging."""
    if result.stderr.strip():
        raise Failure(f"{what} succeeded but printed on stderr:\n{result.stderr[-2000:]}")


def numbers(text: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(text)]


def pte_run_values(output: str) -> list[list[float]]:
    """Each output's values, from pte_run's `    output 0: float32[4, 8] = [[...]]`."""
    return [numbers(line.split("=", 1)[1]) for line in output.splitlines()
            if re.match(r"\s+output \d+:", line)]


def run_methods_values(output: str) -> list[list[float]]:
    return [numbers(line.split("=", 1)[1]) for line in output.splitlines() if " output " in line]


def close(a: list[float], b: list[float], tolerance: float) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tolerance + 1e-5 * abs(y) for x, y in zip(a, b))


def check_methods(device: list[str], env, build: str, pte_run: str, program: str, tolerance: float) -> None:
    result = run(device + [os.path.join(build, "run_methods"), program] + [part for call in CALLS for part in call],
                 "run_methods", env=env)
    quiet(result, "run_methods")
    got = result.stdout
    want = run([pte_run, f"--model={program}"] + [f"--call={m}(full({v})[{s.replace('x', ',')}])" for m, v, s in CALLS],
               "pte_run").stdout
    if not got.startswith("methods: set_cache get_cache accumulate\n"):
        raise Failure(f"run_methods listed other methods:\n{got}")
    mine, theirs = run_methods_values(got), pte_run_values(want)
    # pte_run prints 6 significant digits, run_methods 9.
    if len(mine) != len(CALLS) or not all(close(a, b, tolerance) for a, b in zip(mine, theirs)):
        raise Failure(f"run_methods' outputs differ from pte_run's:\n{got}\n--- pte_run:\n{want}")
    print(f"run_methods: {len(CALLS)} calls on {os.path.basename(program)}, the outputs of pte_run")


def split_vad(output: str) -> tuple[list[float], list[str]]:
    lines = output.splitlines()
    return ([float(line.split()[2]) for line in lines if line.startswith("prob ")],
            [line for line in lines if not line.startswith("prob ")])


def check_vad(device: list[str], env, binary: str, vad: str, program: str, wavs: list[str], tolerance: float) -> None:
    for wav in wavs:
        result = run(device + [binary, program, wav], "vad_segments", env=env)
        quiet(result, os.path.basename(binary))
        got = result.stdout
        want = run([vad, f"--model={program}", "--probs", "--units=samples", wav], "vad").stdout
        (probs, segments), (host_probs, host_segments) = split_vad(got), split_vad(want)
        worst = max((abs(a - b) for a, b in zip(probs, host_probs)), default=float("inf"))
        if len(probs) != len(host_probs) or worst > tolerance or segments != host_segments or not segments:
            raise Failure(f"{os.path.basename(binary)} on {wav}: {len(probs)} chunks, segments {segments}; "
                          f"the vad tool: {len(host_probs)} chunks, segments {host_segments} "
                          f"(largest probability difference {worst:.2e}, allowed {tolerance})")
        print(f"{os.path.basename(binary)} {os.path.basename(wav)}: {len(probs)} chunks, segments {segments} "
              f"as the vad tool's (probabilities within {worst:.1e})")


SENTENCES = ["The weather is nice today.", "I like to read books."]


def check_text_tools(device: list[str], env, build: str, args) -> None:
    binary = os.path.join(build, "text_tools")
    for kind, got_args, want in [
        ("translate", [args.seq2seq] + SENTENCES, [args.translate, f"--model={args.seq2seq}", "--beams=4"] + SENTENCES),
        ("generate", [args.llm, SENTENCES[0]],
         [args.generate, f"--model={args.llm}", "--greedy", "--max_new_tokens=16", SENTENCES[0]]),
    ]:
        result = run(device + [binary, kind] + got_args, f"text_tools {kind}", env=env)
        quiet(result, f"text_tools {kind}")
        expected = run(want, kind).stdout
        if result.stdout != expected:
            raise Failure(f"text_tools {kind} printed {result.stdout!r}, the {kind} tool {expected!r}")
        print(f"text_tools {kind}: {os.path.basename(got_args[0])}, the {kind} tool's text exactly")


def check_loader_stayed_inside(log_dir: str, root: str) -> None:
    opened = set()
    for name in os.listdir(log_dir):
        if name.startswith("ld"):
            with open(os.path.join(log_dir, name)) as f:
                opened.update(re.findall(r"(?:trying file=|calling init: )(\S+)", f.read()))
    outside = sorted(path for path in opened if not os.path.realpath(path).startswith(os.path.realpath(root)))
    if not opened or outside:
        raise Failure(f"the bundled loader opened files outside the SDK: {outside or 'nothing recorded'}")
    print(f"the bundled loader opened {len(opened)} files, all inside the SDK")


def check_pkg_config(root: str, source: str, build: str, vad: str, program: str, wav: str) -> None:
    env = dict(os.environ, PKG_CONFIG_LIBDIR=os.path.join(root, "lib/pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "pteforge-vad", "pteforge-kernels"], "pkg-config", env=env)
    binary = os.path.join(build, "vad_segments_pkg_config")
    run(["g++", "-std=c++17", "-O2", source, "-o", binary] + flags.stdout.split(), "g++ with pkg-config's flags")
    check_vad([], None, binary, vad, program, [wav], 0.0)


def check_missing_component(root: str, work: str) -> None:
    project = os.path.join(work, "missing_component")
    os.makedirs(project)
    with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\n"
                "find_package(pteforge CONFIG REQUIRED COMPONENTS no_such_part)\n")
    result = subprocess.run(["cmake", "-S", project, "-B", os.path.join(project, "build"),
                             f"-Dpteforge_DIR={root}/lib/cmake/pteforge"], capture_output=True, text=True)
    if result.returncode == 0 or "has no component 'no_such_part'" not in result.stderr:
        raise Failure(f"a missing component was not refused clearly:\n{result.stderr}")
    print("find_package(... COMPONENTS no_such_part) fails, naming the SDK's components")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True, choices=sorted(TOLERANCE))
    parser.add_argument("--sdk", required=True)
    parser.add_argument("--example", required=True, help="the example's CMakeLists.txt")
    parser.add_argument("--pte_run", required=True)
    parser.add_argument("--vad", required=True)
    parser.add_argument("--translate", required=True)
    parser.add_argument("--generate", required=True)
    parser.add_argument("--seq2seq", required=True, help="a pteforge.seq2seq program")
    parser.add_argument("--llm", required=True, help="a pteforge.llm program")
    parser.add_argument("--pyproject", required=True)
    parser.add_argument("wavs", nargs="+")
    args = parser.parse_args()
    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    try:
        with tarfile.open(args.sdk) as archive:
            archive.extractall(work)
        (root,) = [os.path.join(work, name) for name in os.listdir(work)]
        sdk = check_sdk_json(root, args.target, args.pyproject)
        print(f"{os.path.basename(root)}: pteforge {sdk['version']}, ExecuTorch {sdk['executorch']['version']} "
              f"(commit {sdk['executorch']['commit'][:12]}), components {[c['name'] for c in sdk['components']]}")
        example = os.path.dirname(os.path.realpath(args.example))
        build = os.path.join(work, "build")
        configure_and_build(example, root, build, args.target)
        log_dir = os.path.join(work, "ld")
        os.makedirs(log_dir)
        device, env = device_command(args.target, root, log_dir)
        programs = os.path.join(root, "share/pteforge/programs")
        tolerance = TOLERANCE[args.target]
        check_methods(device, env, build, args.pte_run, os.path.join(programs, "stateful.pte"), tolerance)
        check_vad(device, env, os.path.join(build, "vad_segments"), args.vad, os.path.join(programs, "silero_vad.pte"),
                  args.wavs, tolerance)
        check_text_tools(device, env, build, args)
        if args.target == "android_arm64_bundle":
            check_loader_stayed_inside(log_dir, root)
        if args.target == "x86_64":
            check_pkg_config(root, os.path.join(example, "vad_segments.cc"), build, args.vad,
                             os.path.join(programs, "silero_vad.pte"), args.wavs[0])
            check_missing_component(root, work)
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
