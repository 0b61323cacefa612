"""Tests of stack_bound.py on a synthetic objdump listing (no Bazel outputs needed)."""
import json
import os
import struct
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_bound  # noqa: E402


def listing(text):
    """objdump -d style: "addr:<TAB>mnemonic<TAB>operands" (written here with " | ")."""
    return "\n".join(line.strip().replace(" | ", "\t") for line in text.strip().splitlines())


# Expected: leaf 16; work 24 (+ tail call to leaf) = 40; recurse_a 8 -> recurse_b 16 = 24;
# callback_a 48 + 24 = 72; main 20 + 16 + 1024 = 1060 + indirect (callback_a) 72 = 1132;
# Reset_Handler 16 + 1132 = 1148; SysTick_Handler 8 + leaf 16 = 24, + 108 stacked context.
LISTING = listing("""
10000000 <Reset_Handler>:
10000000: | push | {r4, lr}
10000002: | sub | sp, #8
10000004: | bl | 10000100 <main>
10000008: | add | sp, #8
1000000a: | pop | {r4, pc}

10000100 <main>:
10000100: | push | {r4, r5, r6, r7, lr}
10000102: | vpush | {d8-d9}
10000106: | sub.w | sp, sp, #1024	@ 0x400
1000010a: | bl | 10000200 <work>
1000010e: | bl | 10000600 <alloca_user>
10000112: | bl | 10000700 <switcher>
10000116: | ldr | r3, [pc, #8]	@ (10000120 <main+0x20>)
10000118: | blx | r3
1000011a: | add.w | sp, sp, #1024	@ 0x400
1000011e: | vpop | {d8-d9}
10000120: | pop | {r4, r5, r6, r7, pc}
10000124: | .word | 0x10000301

10000200 <work>:
10000200: | push | {r3, lr}
10000202: | cbz | r0, 10000208 <work+0x8>
10000204: | movs | r0, #0
10000206: | pop | {r3, pc}
10000208: | sub | sp, #16
1000020a: | b.w | 10000400 <leaf>

10000300 <callback_a>:
10000300: | push | {r4, lr}
10000302: | sub | sp, #40	@ 0x28
10000304: | bl | 10000500 <recurse_a>
10000308: | add | sp, #40	@ 0x28
1000030a: | pop | {r4, pc}

10000340 <callback_b>:
10000340: | sub.w | sp, sp, #4096	@ 0x1000
10000344: | add.w | sp, sp, #4096	@ 0x1000
10000348: | bx | lr

10000400 <leaf>:
10000400: | str.w | lr, [sp, #-4]!
10000404: | sub | sp, #12
10000406: | add | sp, #12
10000408: | ldr.w | pc, [sp], #4

10000500 <recurse_a>:
10000500: | push | {r4, lr}
10000502: | bl | 10000520 <recurse_b>
10000506: | pop | {r4, pc}

10000520 <recurse_b>:
10000520: | push | {r4, r5, r6, lr}
10000522: | bl | 10000500 <recurse_a>
10000526: | pop | {r4, r5, r6, pc}

10000600 <alloca_user>:
10000600: | push | {r7, lr}
10000602: | add | r7, sp, #0
10000604: | sub | sp, sp, r3
10000606: | mov | sp, r7
10000608: | pop | {r7, pc}

10000700 <switcher>:
10000700: | push | {r4, lr}
10000702: | add | r3, pc, #4	@ (adr r3, 10000708 <switcher+0x8>)
10000704: | ldr.w | pc, [r3, r2, lsl #2]
10000708: | .word | 0x10000711
1000070c: | .word | 0x10000713
10000710: | pop | {r4, pc}

10000800 <SysTick_Handler>:
10000800: | push | {r4, lr}
10000802: | bl | 10000400 <leaf>
10000806: | pop | {r4, pc}
""")


def parsed(text=LISTING):
    funcs, words = stack_bound.parse_disassembly(text)
    by_name = {f.name: a for a, f in funcs.items()}
    taken = {w & ~1 for w in words if w & ~1 in funcs}
    return funcs, by_name, taken


def test_register_lists():
    assert stack_bound.reglist_bytes("{r4, r5, lr}") == 12
    assert stack_bound.reglist_bytes("{d8-d15}") == 64
    assert stack_bound.reglist_bytes("{s16-s31}") == 64


def test_frames_from_push_sub_vpush_and_writeback():
    funcs, by_name, _ = parsed()
    frame = {name: funcs[a].frame for name, a in by_name.items()}
    assert frame["Reset_Handler"] == 16
    assert frame["main"] == 20 + 16 + 1024
    assert frame["work"] == 24  # the sub after the mid-function return is in the frame
    assert frame["leaf"] == 16  # str lr, [sp, #-4]! + sub sp, #12
    assert frame["callback_b"] == 4096


def test_calls_tail_calls_and_indirect_calls():
    funcs, by_name, taken = parsed()
    assert by_name["main"] in stack_bound.call_graph(funcs)[by_name["Reset_Handler"]]
    assert stack_bound.call_graph(funcs)[by_name["work"]] == {by_name["leaf"]}  # tail call
    assert funcs[by_name["main"]].indirect == 1
    assert funcs[by_name["switcher"]].indirect == 0  # adr + ldr pc: a switch table
    assert taken == {by_name["callback_a"]}  # the literal 0x10000301, Thumb bit cleared


def test_bound_path_recursion_and_unbounded():
    funcs, by_name, taken = parsed()
    result = stack_bound.analyse(funcs, taken, by_name["Reset_Handler"])
    assert result["bound_bytes"] == 1148 + stack_bound.EXCEPTION_FRAME + 24
    assert [row["function"] for row in result["path"]] == [
        "Reset_Handler", "main", "callback_a (indirect call)", "recurse_a", "recurse_b",
        "<exception entry: 32 basic + 72 FP/MVE + 4 align>", "SysTick_Handler", "leaf"]
    assert result["path"][-1]["cumulative"] == result["bound_bytes"]
    assert result["recursion"] == [["recurse_a", "recurse_b"]]
    assert result["unbounded"] == ["alloca_user", "recurse_a", "recurse_b"]
    assert result["indirect_calls"] == 1 and result["address_taken"] == 1


def test_indirect_calls_reach_only_address_taken_functions():
    funcs, by_name, taken = parsed()
    entry = by_name["Reset_Handler"]
    base = stack_bound.analyse(funcs, taken, entry)["bound_bytes"]
    widened = stack_bound.analyse(funcs, taken | {by_name["callback_b"]}, entry)["bound_bytes"]
    assert widened == base - 72 + 4096  # callback_b's frame replaces callback_a's chain


def test_recursion_through_indirect_calls_counted_one_level():
    text = listing("""
        20000000 <main>:
        20000000: | push | {r4, lr}
        20000002: | blx | r3
        20000004: | pop | {r4, pc}
        20000008: | .word | 0x20000101
        20000100 <callback>:
        20000100: | push | {r4, r5, r6, lr}
        20000102: | blx | r3
        20000104: | pop | {r4, r5, r6, pc}
        """)
    funcs, by_name, taken = parsed(text)
    result = stack_bound.analyse(funcs, taken, by_name["main"])
    assert result["bound_bytes"] == 8 + 16  # main -> callback, the nested call not followed
    assert result["recursion"] == [["<indirect call>", "callback"]]
    assert result["nested_indirect_bytes"] == 16


def tiny_elf(path, symbols):
    """A minimal ARM ELF: empty .text at 0x10000000 and a symbol table."""
    text, strtab, syms = b"\0" * 0x900, b"\0", b"\0" * 16
    for name, value, size, info, shndx in symbols:
        syms += struct.pack("<IIIBBH", len(strtab), value, size, info, 0, shndx)
        strtab += name.encode() + b"\0"
    shstrtab = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    offsets, blob = [], b""
    for data in (text, syms, strtab, shstrtab):
        offsets.append(52 + len(blob))
        blob += data
    headers = b"\0" * 40 + b"".join(struct.pack("<10I", *h) for h in [
        (1, 1, 6, 0x10000000, offsets[0], len(text), 0, 0, 4, 0),
        (7, 2, 0, 0, offsets[1], len(syms), 3, 1, 4, 16),
        (15, 3, 0, 0, offsets[2], len(strtab), 0, 0, 1, 0),
        (23, 3, 0, 0, offsets[3], len(shstrtab), 0, 0, 1, 0)])
    header = struct.pack("<16sHHIIIIIHHHHHH", b"\x7fELF\x01\x01\x01", 2, 40, 1, 0x10000001, 0,
                         52 + len(blob), 0, 52, 0, 0, 40, 5, 4)
    path.write_bytes(header + blob + headers)


@pytest.fixture
def image(tmp_path):
    elf = tmp_path / "image.elf"
    tiny_elf(elf, [("Reset_Handler", 0x10000001, 0x900, 0x12, 1),  # global FUNC in .text
                   ("STACK_SIZE", 2048, 0, 0x10, 0xFFF1)])  # absolute, as the linker script
    (tmp_path / "listing.txt").write_text(LISTING)
    objdump = tmp_path / "objdump"
    objdump.write_text(f"#!/bin/sh\ncat '{tmp_path / 'listing.txt'}'\n")
    objdump.chmod(0o755)
    return elf, objdump, tmp_path


def test_main_fits_reads_reserved_stack_and_writes_json(image, capsys):
    elf, objdump, tmp_path = image
    out = tmp_path / "out.json"
    assert stack_bound.main([f"--elf={elf}", f"--objdump={objdump}", f"--json={out}"]) == 0
    result = json.loads(out.read_text())
    assert (result["bound_bytes"], result["stack_bytes"], result["fits"]) == (1280, 2048, True)
    assert {"path", "unbounded", "recursion", "indirect_calls", "address_taken"} <= set(result)
    assert "STACK_SIZE" in capsys.readouterr().out


def test_main_does_not_fit(image):
    elf, objdump, _ = image
    assert stack_bound.main([f"--elf={elf}", f"--objdump={objdump}", "--stack_bytes=1024"]) == 1


def test_main_bad_input(image, tmp_path, capsys):
    elf, objdump, _ = image
    assert stack_bound.main([f"--elf={tmp_path / 'missing.elf'}"]) == 2
    (tmp_path / "text.elf").write_text("not an ELF")
    assert stack_bound.main([f"--elf={tmp_path / 'text.elf'}"]) == 2
    assert stack_bound.main([f"--elf={elf}", "--objdump=/nonexistent/objdump"]) == 2
    (tmp_path / "short.elf").write_bytes(elf.read_bytes()[:600])  # section headers cut off
    assert stack_bound.main([f"--elf={tmp_path / 'short.elf'}"]) == 2
    assert stack_bound.main([f"--elf={elf}", f"--objdump={objdump}", "--entry=nope"]) == 2
    errors = capsys.readouterr().err
    assert "cannot read" in errors and "not a 32-bit" in errors and "objdump not found" in errors
    assert "truncated or corrupt" in errors and "entry function nope not found" in errors


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v", "-p", "no:cacheprovider"]))
