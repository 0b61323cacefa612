#!/usr/bin/env python3
"""Static worst-case stack bound of a bare-metal Cortex-M55 ELF image.

Usage: stack_bound.py --elf=IMAGE.elf [--objdump=arm-none-eabi-objdump] [--entry=main]
                      [--stack_bytes=N] [--json=out.json] [--top=10]
Exit status 0: the bound fits the reserved stack; 1: it does not; 2: bad input.

Parses `objdump -d --no-show-raw-insn` of the code range in one pass:
* Frame: the largest cumulative sp decrement along the function's linear instruction
  stream: push/stmdb sp! 4 bytes a register, vpush/vstmdb sp! 8 a d (4 an s) register,
  sub sp #N, `[sp, #-N]!` stores. Increments (pop, add sp, `[sp], #N`) count only where
  code goes on after them: a run of them ending in a return, tail call or branch is an
  epilogue, and the code laid out after it still runs in the full frame. `sub sp, sp,
  rN` (or `mov sp, rN` not followed by an epilogue) sizes the frame at run time
  (alloca, VLA): UNBOUNDED, and only the static part is counted.
* Calls: bl/blx <sym>; b/b.w/b<cond> to another function is a tail call, charged with
  the caller's whole frame (errs high). blx rN, bx rN (not lr), ldr/mov pc are indirect
  unless an `adr` just before makes them a switch table.
* Indirect calls may call any address-taken function, approximated as any function
  whose start (Thumb bit set or not) equals an aligned word of a loaded section:
  literal pools, rodata (merged into .text by mps3_an547.ld: vtables, kernel tables),
  .data, .got (the images are PIC), .init_array. Not .vectors: its handlers are
  counted as exceptions. Data that merely looks like an address only adds callees.
* Recursion: a cycle of direct calls makes its functions UNBOUNDED; the bound then
  assumes each recursion goes one level deep (longest path visiting each function of
  the cycle once; the sum of its frames if the search is too large). An address-taken
  function reaching an indirect call closes a cycle through "any address-taken
  function"; it is also counted one level deep: indirect calls below an indirect call
  are not followed, and the report says what one more level would add.
* Exceptions: the deepest `*_Handler` (not the entry) once on top, plus its stacked
  context: 32 bytes basic frame + 72 FP context (S0-S15, FPSCR, VPR: the M55 has FP and
  MVE; lazy stacking reserves the space) + 4 of alignment padding. No nesting.
The reserved stack, unless --stack_bytes is given, is the ELF's absolute symbol
STACK_SIZE (mps3_an547.ld: __stack_size__, i.e. cortex_m_program's stack_kb, else 1M),
else __stack_top - __stack_limit. "fits" compares the number even when UNBOUNDED.
"""
import argparse
import array
import bisect
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from itertools import accumulate
from types import SimpleNamespace

EXCEPTION_FRAME = 32 + 72 + 4  # basic + FP/MVE context + alignment pad, bytes
INDIRECT = -1  # call-graph node: "any address-taken function"
SEARCH_LIMIT, SEARCH_BUDGET = 64, 20000  # exhaustive search of a recursion cycle
_COND = r"(?:eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?"
_BRANCH = re.compile(r"b" + _COND + r"(?:\.[nw])?$")  # not bl/blx (calls), not ble/bls
_PUSH = re.compile(r"(?:push|vpush)" + _COND + r"(?:\.w)?\t|(?:stmdb|stmfd|vstmdb)(?:\.w)?\tsp!")
_POP = re.compile(r"(?:pop|vpop)" + _COND + r"(?:\.w)?\t|(?:ldmia|ldmfd|ldm|vldmia)(?:\.w)?\tsp!")
_IMM = re.compile(r"#(\d+)")
_PRE_DEC, _POST_INC = re.compile(r"\[sp, #-(\d+)\]!"), re.compile(r"\[sp\], #(\d+)")


class InputError(Exception):
    """Bad input: exit status 2."""


def reglist_bytes(ops):
    """Bytes a register list such as `{r4, r5, lr}` or `{d8-d15}` occupies."""
    total = 0
    for reg in ops[ops.find("{") + 1:ops.find("}")].split(","):
        low, _, high = reg.strip().partition("-")
        total += (int(high[1:]) - int(low[1:]) + 1 if high else 1) * (8 if low[0] == "d" else 4)
    return total


def sp_effect(mnem, ops):
    """(decrement, increment, dynamic) of one instruction on sp; dynamic is "sub"
    (sp lowered by a register), "mov" (sp set from a register) or None."""
    if _PUSH.match(mnem + "\t" + ops):
        return reglist_bytes(ops), 0, None
    if _POP.match(mnem + "\t" + ops):
        return 0, reglist_bytes(ops), None
    if not ops.startswith("sp,"):
        dec, inc = _PRE_DEC.search(ops), _POST_INC.search(ops)
        return int(dec.group(1)) if dec else 0, int(inc.group(1)) if inc else 0, None
    base, imm = mnem.split(".")[0], _IMM.search(ops)
    if base in ("sub", "subw", "subs"):
        return (int(imm.group(1)), 0, None) if imm else (0, 0, "sub")
    if base in ("add", "addw", "adds") and imm:  # add sp, rN: ignored (errs high)
        return 0, int(imm.group(1)), None
    return 0, 0, ("mov" if base == "mov" and not imm else None)


def control(mnem, ops, fn_name, after_adr):
    """(kind, target address): kind is call, tail, jump (inside the function),
    return, icall (indirect call), ijump (indirect tail call) or None."""
    if (mnem.startswith(("pop", "ldm")) and "pc}" in ops
            or mnem.startswith("bx") and ops == "lr"
            or mnem.startswith("ldr") and ops.startswith("pc, [sp]")):
        return "return", None
    if mnem in ("bl", "blx") and "<" in ops:
        return "call", int(ops.split()[0], 16)
    if _BRANCH.match(mnem) and "<" in ops:
        if ops[ops.find("<") + 1:ops.rfind(">")].split("+")[0] != fn_name:
            return "tail", int(ops.split()[0], 16)  # to another function's start or body
        return ("jump" if mnem in ("b", "b.n", "b.w") else None), None
    if mnem.startswith("blx"):
        return "icall", None
    if mnem.startswith("bx") or (mnem.startswith(("ldr", "mov")) and ops.startswith("pc,")):
        return ("jump" if after_adr else "ijump"), None  # adr; ldr pc, [..]: a switch
    return None, None


def parse_disassembly(text):
    """Functions {start: namespace(name, frame, calls, indirect, dynamic)} and the
    `.word` literals of an objdump -d listing: a pure function of the text."""
    funcs, words, fn = {}, set(), None
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 1:
            if line.endswith(">:") and " <" in line:  # "600757b8 <Reset_Handler>:"
                addr, _, name = line[:-2].partition(" <")
                fn = funcs[int(addr, 16)] = SimpleNamespace(
                    name=name, frame=0, calls=set(), indirect=0, dynamic=False)
                depth, pending, since_adr, mov_sp = 0, 0, 99, False
            continue
        if fn is None or len(parts) < 2 or not parts[0].endswith(":"):
            continue
        mnem, ops = parts[1].strip(), parts[2].split(" @")[0].strip() if len(parts) > 2 else ""
        if mnem == ".word":
            words.add(int(ops, 16))
            continue
        since_adr = 0 if "(adr " in line else since_adr + 1
        dec, inc, dynamic = sp_effect(mnem, ops)
        kind, target = control(mnem, ops, fn.name, since_adr <= 3)
        if target is not None:
            fn.calls.add(target)
        fn.indirect += kind in ("icall", "ijump")
        ends_run = kind in ("return", "tail", "jump", "ijump")
        # sp loaded from a register is an epilogue if the frame is popped next;
        # otherwise the frame's size is only known at run time.
        fn.dynamic |= dynamic == "sub" or (mov_sp and not (ends_run or inc))
        mov_sp = dynamic == "mov"
        if ends_run:
            pending = 0  # epilogue: the code laid out after it still runs in the frame
        elif inc:
            pending += inc
        else:
            depth, pending = max(0, depth - pending) + dec, 0
            fn.frame = max(fn.frame, depth)
    return funcs, words


def call_graph(funcs):
    """Direct callees of each function (a target resolved to the function holding it)."""
    starts = sorted(funcs)
    return {a: {starts[bisect.bisect_right(starts, t) - 1] for t in f.calls if t >= starts[0]}
            for a, f in funcs.items()}


def components(succ):
    """Tarjan's strongly connected components, iterative (call chains are long),
    callees before callers."""
    index, low, stack, on_stack, order = {}, {}, [], set(), []
    for root in (r for r in succ if r not in index):
        work = [(root, None)]
        while work:
            node, children = work.pop()
            if children is None:  # first visit
                index[node] = low[node] = len(index)
                stack.append(node), on_stack.add(node)
                children = iter(succ[node])
            child = next(children, None)
            if child is not None:
                work.append((node, children))
                if child not in index:
                    work.append((child, None))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if work:  # node done: its caller inherits its low link
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                order.append([])
                while node not in order[-1]:
                    order[-1].append(stack.pop()), on_stack.discard(order[-1][-1])
    return order


def longest_in_cycle(start, members, succ, frame, exits):
    """(bytes, path, exit) of the longest simple path from start inside a cycle plus
    its best exit, or None when the search exceeds its budget."""
    best, budget, todo = None, SEARCH_BUDGET, [(start, [start], frame[start])]
    while todo and budget > 0:
        node, path, total = todo.pop()
        budget -= 1
        if best is None or total + exits[node][0] > best[0]:
            best = (total + exits[node][0], path, exits[node][1])
        todo.extend((s, path + [s], total + frame[s]) for s in succ[node]
                    if s in members and s not in path)
    return None if todo else best


def layer(order, succ, funcs, below):
    """{function: (worst bytes, functions charged, next)}, an indirect call adding
    below = (bytes, callee) (None: indirect calls not followed)."""
    result = {}
    for component in order:
        members, exits = set(component), {}
        frame = {v: funcs[v].frame for v in component}
        for v in component:
            options = [(result[s][0], s) for s in succ[v] if s not in members]
            options += [(below[0], INDIRECT)] if below and funcs[v].indirect else []
            exits[v] = max(options, default=(0, None), key=lambda o: o[0])
        for v in component:
            if len(component) == 1 and v not in succ[v]:
                result[v] = (frame[v] + exits[v][0], [v], exits[v][1])
                continue
            found = longest_in_cycle(v, members, succ, frame, exits) \
                if len(component) <= SEARCH_LIMIT else None
            if found is None:  # too large to search: each frame of the cycle once
                out = max(exits.values(), key=lambda o: o[0])
                found = (sum(frame.values()) + out[0], [v] + sorted(members - {v}), out[1])
            result[v] = found
    return result


def deepest_path(node, layers, level, best_taken, funcs):
    """[(name, frame)] along the deepest path from node at an indirect-nesting level."""
    rows, note = [], ""
    while node is not None:
        _, charged, node = layers[level][node]
        rows += [(funcs[n].name + (note if i == 0 else ""), funcs[n].frame)
                 for i, n in enumerate(charged)]
        note = ""
        if node == INDIRECT:  # goes on in the deepest address-taken function
            level -= 1
            node, note = best_taken[level][1], " (indirect call)"
    return rows


def analyse(funcs, taken, entry):
    """The bound from entry plus the deepest exception handler, as the --json dict."""
    succ = call_graph(funcs)
    order = components(succ)
    layers, best_taken = [], []
    for _ in range(3):  # indirect calls followed 0, 1, 2 levels deep; 1 is reported
        layers.append(layer(order, succ, funcs, best_taken[-1] if best_taken else None))
        best_taken.append(max(((layers[-1][y][0], y) for y in taken), default=None))
    handlers = [a for a, f in funcs.items() if f.name.endswith("_Handler") and a != entry]
    roots = [entry] + handlers
    rows, bound = deepest_path(entry, layers, 1, best_taken, funcs), layers[1][entry][0]
    if handlers:
        deepest = max(handlers, key=lambda h: layers[1][h][0])
        rows += [("<exception entry: 32 basic + 72 FP/MVE + 4 align>", EXCEPTION_FRAME)]
        rows += deepest_path(deepest, layers, 1, best_taken, funcs)
        bound += EXCEPTION_FRAME + layers[1][deepest][0]
    seen, todo = set(roots), list(roots)  # reachable, through indirect calls too
    while todo:
        v = todo.pop()
        new = (succ[v] | (taken if funcs[v].indirect else set())) - seen
        seen |= new
        todo += new
    recursion = [sorted(funcs[v].name for v in c) for c in order
                 if c[0] in seen and (len(c) > 1 or c[0] in succ[c[0]])]
    reaches = {}  # reaches an indirect call through direct calls (callees come first)
    for c in order:
        flag = any(funcs[v].indirect or any(reaches.get(s) for s in succ[v]) for v in c)
        reaches.update(dict.fromkeys(c, flag))
    reentrant = sorted(funcs[y].name for y in taken if reaches[y] and y in seen)
    cumulative = accumulate(size for _, size in rows)
    return {"bound_bytes": bound,
            "path": [{"function": n, "frame": s, "cumulative": c}
                     for (n, s), c in zip(rows, cumulative)],
            "unbounded": sorted({funcs[v].name for v in seen if funcs[v].dynamic}
                                | {n for c in recursion for n in c}),
            "recursion": recursion + ([["<indirect call>"] + reentrant] if reentrant else []),
            "indirect_calls": sum(funcs[v].indirect for v in seen), "address_taken": len(taken),
            "nested_indirect_bytes": max(layers[2][r][0] - layers[1][r][0] for r in roots)}


def read_elf(path):
    """(bytes, sections [(name, type, flags, addr, offset, size)], symbols
    [(name, value, size, type, section index)]) of a 32-bit little-endian ARM ELF."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}")
    if len(data) < 52 or data[:6] != b"\x7fELF\x01\x01" or data[18:20] != b"\x28\0":  # EM_ARM
        raise InputError(f"{path} is not a 32-bit little-endian ARM ELF file")
    try:
        shoff, = struct.unpack_from("<I", data, 32)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 46)
        raw = [struct.unpack_from("<10I", data, shoff + i * shentsize) for i in range(shnum)]

        def string(table, offset):
            start = raw[table][4] + offset
            return data[start:data.index(b"\0", start)].decode(errors="replace")

        symbols = [(string(s[6], name), value, size, info & 0xF, ndx)
                   for s in raw if s[1] == 2  # SHT_SYMTAB
                   for name, value, size, info, _, ndx
                   in struct.iter_unpack("<IIIBBH", data[s[4]:s[4] + s[5]])]
        return data, [(string(shstrndx, s[0]),) + s[1:6] for s in raw], symbols
    except (struct.error, IndexError, ValueError):  # headers point past the end
        raise InputError(f"{path} is a truncated or corrupt ELF file")


def address_taken(data, sections, starts):
    """Function starts found as aligned words of the loaded sections (module doc)."""
    keys = {a | bit: a for a in starts for bit in (0, 1)}
    wanted, found = set(keys), set()
    for name, kind, flags, addr, offset, size in sections:
        # Loaded (SHF_ALLOC) with contents: not NOBITS, not EXIDX (prel31 offsets).
        if flags & 2 and kind not in (8, 0x70000001) and name != ".vectors":
            skip = -addr % 4
            words = array.array("I", data[offset + skip:offset + size - (size - skip) % 4])
            if sys.byteorder == "big":
                words.byteswap()
            found.update(keys[w] for w in wanted.intersection(words))  # C speed on 70 MB
    return found


def disassemble(objdump, elf, sections, symbols):
    """objdump -d of the range holding the functions: rodata that the linker script
    merges into .text after the code is scanned as data, not disassembled."""
    if not (shutil.which(objdump) or os.access(objdump, os.X_OK)):
        raise InputError(f"objdump not found: {objdump}")
    code = [(v & ~1, (v & ~1) + size) for _, v, size, kind, ndx in symbols
            if kind == 2 and 0 < ndx < len(sections) and sections[ndx][2] & 4]  # FUNC, exec
    if not code:
        raise InputError(f"{elf} has no function symbols (stripped?)")
    command = [objdump, "-d", "--no-show-raw-insn", "--start-address=0x%x" % min(code)[0],
               "--stop-address=0x%x" % max(end for _, end in code), elf]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise InputError(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return result.stdout


def reserved_stack(symbols):
    """(bytes, symbol) of the stack the linker reserved, or (None, None)."""
    values = {name: value for name, value, _, _, _ in symbols}
    for name in ("STACK_SIZE", "__stack_size__"):
        if name in values:
            return values[name], name
    if "__stack_top" in values and "__stack_limit" in values:
        size = (values["__stack_top"] - values["__stack_limit"]) % 2**32
        return size, "__stack_top - __stack_limit"
    return None, None


def report(result, entry, source, top):
    lines = [f"deepest path from {entry}, then the deepest exception handler:",
             f"{'frame':>7} {'cumulative':>10}  function"]
    path = result["path"]
    lines += [f"{r['frame']:7d} {r['cumulative']:10d}  {r['function']}" for r in path[:top]]
    lines += [f"    ... {len(path) - top} more frames"] if len(path) > top else []
    lines.append(f"bound: {result['bound_bytes']} bytes" + (" UNBOUNDED; this number assumes each"
                 " recursion goes one level deep and counts static frames only"
                 if result["unbounded"] or result["recursion"] else ""))
    for cycle in result["recursion"]:
        names = [n for n in cycle if n != "<indirect call>"]
        kind = ("possible recursion through indirect calls (address-taken functions reaching one)"
                if cycle[0] == "<indirect call>" else "recursion")
        more = ", ..." if names[5:] else ""
        lines.append(f"{kind} [{len(names)}]: {', '.join(names[:5])}{more}")
    dynamic = [n for n in result["unbounded"] if not any(n in c for c in result["recursion"])]
    lines += [f"run-time sized frames: {', '.join(dynamic)}"] if dynamic else []
    lines.append(f"indirect call sites: {result['indirect_calls']}, address-taken functions: "
                 f"{result['address_taken']}; one more level of nested indirect calls would add "
                 f"up to {result['nested_indirect_bytes']} bytes")
    if result["stack_bytes"] is None:
        lines.append("reserved stack: unknown (give --stack_bytes)")
    else:
        verdict = "fits" if result["fits"] else "DOES NOT FIT"
        lines.append(f"reserved stack: {result['stack_bytes']} bytes ({source}): {verdict}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elf", required=True)
    parser.add_argument("--objdump", default="arm-none-eabi-objdump")
    parser.add_argument("--entry", help="default: Reset_Handler if present, else main")
    parser.add_argument("--stack_bytes", type=int, help="default: from the ELF's symbols")
    parser.add_argument("--json")
    parser.add_argument("--top", type=int, default=10, help="path rows printed")
    args = parser.parse_args(argv)
    try:
        data, sections, symbols = read_elf(args.elf)
        funcs, words = parse_disassembly(disassemble(args.objdump, args.elf, sections, symbols))
        by_name = {f.name: a for a, f in funcs.items()}
        entry = args.entry or ("Reset_Handler" if "Reset_Handler" in by_name else "main")
        if entry not in by_name:
            raise InputError(f"entry function {entry} not found in {args.elf}")
    except InputError as error:
        print(f"stack_bound: {error}", file=sys.stderr)
        return 2
    taken = {w & ~1 for w in words if w & ~1 in funcs} | address_taken(data, sections, funcs)
    result = analyse(funcs, taken, by_name[entry])
    stack, source = ((args.stack_bytes, "--stack_bytes") if args.stack_bytes is not None
                     else reserved_stack(symbols))
    result["stack_bytes"] = stack
    result["fits"] = None if stack is None else result["bound_bytes"] <= stack
    print(report(result, entry, source, args.top))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 1 if result["fits"] is False else 0


if __name__ == "__main__":
    sys.exit(main())
