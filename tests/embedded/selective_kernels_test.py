"""Selective kernel registration links exactly a program's kernels.

For the stateful program's Cortex-M55 image (pte_kernels):
  * the registered operators (operators.txt) are exactly the program's, apart from the
    primitive operators;
  * the image contains the kernel function of every registered operator and of no
    other portable or quantized operator;
  * the primitive operators the image registers (the names in its prim_ops array) are
    exactly the program's (pte_kernels registers them on the
    Cortex-M55; the runtime registers none);
and, given the same image with every kernel registered (--all: the by-name
selective_kernels_saving_test, which compiles every kernel for the Cortex-M55 once
more), it prints what selecting saves (code size, kernels linked) and requires that it
saves something.
"""

from __future__ import annotations

import argparse
import struct
import subprocess
import sys

import yaml

from pteforge.support import program_file
from pteforge.support.quiet import quiet_dependencies

# Registered from a copy of ExecuTorch's register_prim_ops.cpp (select_kernels.py).
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


def registered_primitives(elf: str) -> set[str]:
    """The names in the image's copy of register_prim_ops.cpp's `prim_ops` array (12-byte
    Kernels, the name's address first; no array when nothing is registered). Read from
    the array itself: pteforge's program checks hold every operator's name anyway."""
    names = subprocess.run(["arm-none-eabi-nm", "-S", "-C", elf], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    arrays = [line.split() for line in names if line.endswith("(anonymous namespace)::prim_ops")]
    if not arrays:
        return set()
    assert len(arrays) == 1, arrays
    address, size = int(arrays[0][0], 16), int(arrays[0][1], 16)
    with open(elf, "rb") as f:
        image = f.read()
    # ELF32 little-endian section headers: where each loaded address is in the file.
    shoff, = struct.unpack_from("<I", image, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x2E)
    sections = []
    for i in range(shnum):
        _, kind, _, addr, offset, length = struct.unpack_from("<IIIIII", image, shoff + i * shentsize)
        if kind != 8 and addr:  # not NOBITS (.bss)
            sections.append((addr, offset, length))

    def read(at: int, length: int) -> bytes:
        for addr, offset, section_length in sections:
            if addr <= at and at + length <= addr + section_length:
                return image[offset + at - addr:offset + at - addr + length]
        raise AssertionError(f"{elf}: nothing at {at:#x}")

    found = set()
    for entry in range(size // 12):
        pointer, = struct.unpack("<I", read(address + 12 * entry, 4))
        text = read(pointer, 64)
        found.add(text[:text.index(b"\0")].decode())
    return found


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

    primitives = {op for op in program_operators(args.program) if op.startswith(_PRIMITIVE_PREFIXES)}
    in_image = registered_primitives(args.selective)
    if not primitives or in_image != primitives:
        failures.append(f"the image registers the primitive operators {sorted(in_image)}, "
                        f"the program uses {sorted(primitives)}")

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
