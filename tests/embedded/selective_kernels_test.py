"""Selective kernel registration links exactly a program's kernels.

For the stateful program's Cortex-M55 image (pte_kernels):
  * the registered operators (operators.txt) are exactly the program's, apart from the
    primitive operators the runtime registers itself;
  * the image contains the kernel function of every registered operator and of no
    other portable or quantized operator;
and, given the same image with every kernel registered (--all: the by-name
selective_kernels_saving_test, which compiles every kernel for the Cortex-M55 once
more), it prints what selecting saves (code size, kernels linked) and requires that it
saves something.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import yaml

from pteforge.support import program_file
from pteforge.support.quiet import quiet_dependencies

# Registered by the runtime's prim_ops library, whatever the selection.
_PRIMITIVE_PREFIXES = ("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense")


def kernel_functions(*paths: str) -> dict[str, str]:
    """Operator -> the kernel function that implements it (as the image names it)."""
    kernels = {}
    for path in paths:
        with open(path) as f:
            for entry in yaml.safe_load(f):
                name = entry["op"] if "op" in entry else entry["func"].split("(", 1)[0]
                name = name if "::" in name else "aten::" + name
                function = entry["kernels"][0]["kernel_name"]  # torch::executor::add_out
                kernels[name] = function.replace("torch::executor::", "torch::executor::native::") + "("
    return kernels


def program_operators(path: str) -> set[str]:
    quiet_dependencies()
    program = program_file.read_program(path)
    return {op.name + (f".{op.overload}" if op.overload else "")
            for plan in program.execution_plan for op in plan.operators}


def linked(elf: str, kernels: dict[str, str]) -> set[str]:
    """The operators whose kernel function is in the image."""
    names = subprocess.run(["arm-none-eabi-nm", "-C", elf], capture_output=True, text=True, check=True).stdout
    defined = [line.split(" ", 2)[2] for line in names.splitlines() if line.count(" ") >= 2 and line[9] in "tTwW"]
    return {op for op, function in kernels.items() if any(name.startswith(function) for name in defined)}


def text_bytes(elf: str) -> int:
    for line in subprocess.run(["arm-none-eabi-size", "-A", elf], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        if line.startswith(".text "):
            return int(line.split()[1])
    raise AssertionError(f"no .text in {elf}")


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("program", "operators", "selective", "functions_yaml", "quantized_yaml"):
        parser.add_argument(f"--{flag}", required=True)
    parser.add_argument("--all", help="the image with every kernel: compare their sizes")
    args = parser.parse_args()
    failures = []

    wanted = {op for op in program_operators(args.program) if not op.startswith(_PRIMITIVE_PREFIXES)}
    with open(args.operators) as f:
        registered = {line.strip() for line in f if line.strip()}
    if registered != wanted:
        failures.append(f"registered {sorted(registered)}, the program uses {sorted(wanted)}")

    kernels = kernel_functions(args.functions_yaml, args.quantized_yaml)
    selective = linked(args.selective, kernels)
    if selective != registered:
        failures.append(f"kernels linked but not registered: {sorted(selective - registered)}; "
                        f"registered but not linked: {sorted(registered - selective)}")
    print(f"{'image':32} {'kernels linked':>15} {'.text bytes':>12}")
    print(f"{'stateful, selective':32} {len(selective):>15} {text_bytes(args.selective):>12,}")
    if args.all:
        failures += compare_with_every_kernel(args.selective, args.all, kernels, selective)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


def compare_with_every_kernel(selective_elf: str, all_elf: str, kernels: dict[str, str],
                              selective: set[str]) -> list[str]:
    everything = linked(all_elf, kernels)
    program_size = text_bytes(selective_elf) - text_bytes(all_elf)
    print(f"{'stateful, every kernel':32} {len(everything):>15} {text_bytes(all_elf):>12,}")
    print(f"selecting the program's kernels saves {-program_size:,} bytes of code "
          f"({len(everything) - len(selective)} kernels)")
    if program_size >= 0 or len(everything) <= len(selective):
        return ["the image with every kernel is not larger"]
    return []


if __name__ == "__main__":
    sys.exit(main())
