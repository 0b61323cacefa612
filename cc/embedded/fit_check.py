"""Checks that a bare-metal image fits a board's memory; fails the build if it does not.

    fit_check.py --elf=x.elf --board=mps3_an547 --image=//label --table=x.fit.txt
        [--copy_to=image.elf] [--nm=arm-none-eabi-nm] [--size=arm-none-eabi-size]

Each part of the image is measured in the ELF (section sizes from `size -A`, symbol
sizes from `nm -S`): code and constants, the embedded program and replay record,
initialized data, and in RAM
the Session's arenas and pools and the heap (pte_embed names them), other .bss and the
stack (the linker script's __stack_limit..__stack_top). Each part goes to a region of
the board (BOARDS); every region must hold its parts. The table is written either way;
on failure it is printed with what to change, and the exit status is 1. With
--copy_to, the ELF is copied there only if it fits (cortex_m_image's output).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import subprocess
import sys

KB = 1024
MB = 1024 * KB


@dataclasses.dataclass(frozen=True)
class Board:
    """A board's memory: region name -> capacity, and which region holds read-only
    parts (code, constants, the program) and which writable ones."""

    description: str
    regions: dict[str, int]
    read_only: str
    writable: str


def _microcontroller(flash: int, sram: int, flash_text: str, sram_text: str) -> Board:
    """A Cortex-M55 microcontroller without external memory: flash and SRAM."""
    return Board(
        description=f"a Cortex-M55 microcontroller with {flash_text} flash and {sram_text} SRAM, no external memory",
        regions={"flash": flash, "SRAM": sram},
        read_only="flash",
        writable="SRAM",
    )


BOARDS = {
    # What qemu-system-arm -M mps3-an547 -m 2G emulates and the linker script uses:
    # everything in the 2 GB DDR (the 512 KB ITCM holds only the vector table).
    "mps3_an547": Board(
        description="Arm MPS3 AN547 (Cortex-M55): 2 GB DDR for code, data and stack",
        regions={"DDR": 2048 * MB},
        read_only="DDR",
        writable="DDR",
    ),
    # A typical Cortex-M55 microcontroller without external memory.
    "m55_2mb_flash_512kb_sram": _microcontroller(2 * MB, 512 * KB, "2 MB", "512 KB"),
    # A smaller one, the target of int8 models (Silero VAD's int8 image).
    "m55_1mb_flash_256kb_sram": _microcontroller(1 * MB, 256 * KB, "1 MB", "256 KB"),
    # The smallest class a streaming model on CMSIS-NN kernels is meant for (Silero VAD's
    # int8 image on the Cortex-M55's Helium unit).
    "m55_512kb_flash_128kb_sram": _microcontroller(512 * KB, 128 * KB, "512 KB", "128 KB"),
}

# Symbols pte_embed and heap.c define, and what they are.
_NAMED = {
    "pteforge_program_data": ("read_only", "the program (.pte)"),
    "pteforge_replay_data": ("read_only", "the replay record"),
    "pteforge_state_arena": ("writable", "state arena (report)"),
    "pteforge_work_arena": ("writable", "work arena (report)"),
    "pteforge_method_pool": ("writable", "method pool"),
    "pteforge_temp_pool": ("writable", "kernel scratch"),
    "pteforge_heap": ("writable", "heap"),
}


def _run(tool: str, *args: str) -> str:
    return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout


def section_sizes(size_tool: str, elf: str) -> dict[str, int]:
    sizes = {}
    for line in _run(size_tool, "-A", elf).splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0].startswith(".") and fields[1].isdigit():
            sizes[fields[0]] = int(fields[1])
    return sizes


def symbols(nm_tool: str, elf: str) -> list[tuple[str, str, int, int]]:
    """(demangled name, type letter, address, size) of every symbol."""
    result = []
    for line in _run(nm_tool, "-S", "-C", elf).splitlines():
        fields = line.split(maxsplit=3)
        if len(fields) == 4:
            address, size, kind, name = fields
            result.append((name, kind, int(address, 16), int(size, 16)))
        elif len(fields) == 3 and len(fields[0]) == 8:
            address, kind, name = fields
            result.append((name, kind, int(address, 16), 0))
    return result


def measure(elf: str, nm_tool: str, size_tool: str) -> list[tuple[str, str, int]]:
    """The image's parts: (description, "read_only" | "writable", bytes)."""
    sections = section_sizes(size_tool, elf)
    table = symbols(nm_tool, elf)
    named = {name: size for name, _, _, size in table if name in _NAMED}
    address = {name: addr for name, _, addr, _ in table}
    # The linker script's .text holds code and read-only data, the embedded program too.
    blobs = sum(named.get(symbol, 0) for symbol, (region, _) in _NAMED.items() if region == "read_only")
    parts = [
        ("code + constants (runtime, kernels, C/C++ libraries)", "read_only", sections.get(".text", 0) - blobs),
        ("vector table, unwind tables, init arrays, GOT", "read_only",
         sum(sections.get(s, 0) for s in (".vectors", ".ARM.exidx", ".ARM.extab", ".preinit_array",
                                          ".init_array", ".fini_array", ".got", ".got.plt"))),
    ]
    for symbol, (region, description) in _NAMED.items():
        if region == "read_only" and symbol in named:
            parts.append((description, region, named[symbol]))
    data = sections.get(".data", 0)
    parts.append((".data (initial values, copied at load)", "read_only", data))
    parts.append((".data", "writable", data))
    bss_named = 0
    for symbol, (region, description) in _NAMED.items():
        if region == "writable" and symbol in named:
            parts.append((description, region, named[symbol]))
            bss_named += named[symbol]
    parts.append(("other .bss", "writable", max(sections.get(".bss", 0) - bss_named, 0)))
    if "__stack_top" in address and "__stack_limit" in address:
        parts.append(("stack", "writable", address["__stack_top"] - address["__stack_limit"]))
    return parts


def _human(n: int) -> str:
    if n >= MB:
        return f"{n / MB:.1f} MB"
    if n >= KB:
        return f"{n / KB:.1f} KB"
    return f"{n} B"


def check(image: str, board_name: str, parts: list[tuple[str, str, int]]) -> tuple[bool, str]:
    """Whether the parts fit the board, and the table saying so."""
    board = BOARDS[board_name]
    region_of = {"read_only": board.read_only, "writable": board.writable}
    used = {region: 0 for region in board.regions}
    if board.read_only == board.writable:  # loaded in place: .data's values are .data itself
        parts = [part for part in parts if not part[0].startswith(".data (initial values")]
    lines = [f"fit check: {image} on {board_name} ({board.description})", ""]
    lines.append(f"  {'part':52} {'bytes':>12}  region")
    for description, kind, size in parts:
        region = region_of[kind]
        used[region] += size
        lines.append(f"  {description:52} {size:>12,}  {region}")
    by_kind = {kind: sum(size for _, k, size in parts if k == kind) for kind in ("read_only", "writable")}
    lines.append("")
    lines.append(f"  read-only (flash: code, constants, the program): {_human(by_kind['read_only'])}; "
                 f"writable (RAM: data, arenas, pools, heap, stack): {_human(by_kind['writable'])}")
    fits = True
    for region, capacity in board.regions.items():
        ok = used[region] <= capacity
        fits = fits and ok
        lines.append(f"  {region}: {_human(used[region])} of {_human(capacity)} "
                     f"({100 * used[region] / capacity:.1f}%) {'fits' if ok else 'DOES NOT FIT'}")
    if not fits:
        biggest = sorted(parts, key=lambda part: -part[2])[:3]
        lines += [
            "",
            f"{image} does not fit {board_name}: the largest parts are "
            + ", ".join(f"{d} ({_human(s)})" for d, _, s in biggest) + ".",
            "To make it fit: a smaller model, or int8 weights (pteforge.lower.quantize) to shrink the program; "
            "smaller dynamic-shape bounds to shrink the arenas; a smaller heap_kb / stack_kb; or a board "
            "with external memory (board = \"mps3_an547\").",
        ]
    return fits, "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elf", required=True)
    parser.add_argument("--board", required=True, choices=sorted(BOARDS))
    parser.add_argument("--image", default="the image", help="the image's name, for messages")
    parser.add_argument("--table", required=True, help="where to write the table")
    parser.add_argument("--copy_to", help="copy the ELF here if it fits")
    parser.add_argument("--nm", default="arm-none-eabi-nm")
    parser.add_argument("--size", default="arm-none-eabi-size")
    args = parser.parse_args()
    fits, table = check(args.image, args.board, measure(args.elf, args.nm, args.size))
    with open(args.table, "w") as f:
        f.write(table)
    if not fits:
        print(table, file=sys.stderr, end="")
        return 1
    if args.copy_to:
        shutil.copyfile(args.elf, args.copy_to)
        shutil.copymode(args.elf, args.copy_to)
    return 0


if __name__ == "__main__":
    sys.exit(main())
