"""The dtypes each selected kernel is compiled for: ExecuTorch's dtype-selective build,
fed by the programs themselves (pte_kernels, select_kernels.py).

A portable kernel dispatches on its tensors' dtypes with ET_SWITCH macros, one case per
dtype of a family (REALHBBF16: ten of them), each case a copy of the kernel's loops:
op_add.cpp is 42 KB of Cortex-M55 code, nearly all of it dtypes a float program never
uses. ExecuTorch's switch cases call `should_include_kernel_dtype(name, dtype)` when
EXECUTORCH_SELECTIVE_BUILD_DTYPE is defined (kernels/portable/cpu/selective_build.h,
from a generated selected_op_variants.h); a case it excludes becomes a log line and
runtime_abort(), so its code is never instantiated.

Upstream keys that function by the name each switch passes, which is not always the
operator's ("flip_out", not "flip.out"; sqrt's switches name their helper): a name
mismatch aborts at run time. Here each kernel *file* gets one predicate instead, the
union of the dtypes its selected operators use: the copy select_kernels.py compiles
starts with a prelude defining PTEFORGE_SELECTED_DTYPE(t) and including
selective_build.h first (so the check is in place before any switch macro is defined),
and selected_op_variants.h, one for the library, answers with that predicate whatever
the name.

What a kernel may switch on, from the program's kernel calls:
  * every tensor argument's dtype (inputs, outputs, tensor lists);
  * a Scalar argument's type (the schema says which arguments are Scalars): Int is
    Long, Double is Double, Bool is Bool;
  * Float when Half or BFloat16 is there (the portable kernels compute those in float).
"""

from __future__ import annotations

import json
import re

# ExecuTorch's ScalarType values (runtime/core/portable_type/scalar_type.h), by name.
DTYPE_NAMES = {
    0: "Byte", 1: "Char", 2: "Short", 3: "Int", 4: "Long", 5: "Half", 6: "Float", 7: "Double",
    8: "ComplexHalf", 9: "ComplexFloat", 10: "ComplexDouble", 11: "Bool", 12: "QInt8", 13: "QUInt8",
    14: "QInt32", 15: "BFloat16", 16: "QUInt4x2", 17: "QUInt2x4", 18: "Bits1x8", 19: "Bits2x4",
    20: "Bits4x2", 21: "Bits8", 22: "Bits16", 23: "Float8_e5m2", 24: "Float8_e4m3fn",
    25: "Float8_e5m2fnuz", 26: "Float8_e4m3fnuz", 27: "UInt16", 28: "UInt32", 29: "UInt64",
}
_LONG, _FLOAT, _DOUBLE, _BOOL, _HALF, _BFLOAT16 = 4, 6, 7, 11, 5, 15
_SCALAR_VALUE = {"Int": _LONG, "Double": _DOUBLE, "Bool": _BOOL}

# `- func: add.out(Tensor self, ...) -> ...` in native_functions.yaml and custom op yamls.
_FUNC = re.compile(r"^\s*-?\s*func:\s*([\w:.]+)\((.*)\)\s*->", re.M)


def schema_argument_types(yaml_paths: list[str]) -> dict[str, list[str]]:
    """Operator (namespace::name.overload) -> its arguments' types in order (`Scalar`,
    `Tensor(a!)`, `int[]`, ...), read with a regular expression: a safe_load of torchgen's
    native_functions.yaml takes seconds."""
    schemas = {}
    for path in yaml_paths:
        with open(path, encoding="utf-8") as f:
            for name, arguments in _FUNC.findall(f.read()):
                name = name if "::" in name else "aten::" + name
                types = [argument.strip().rsplit(" ", 1)[0] for argument in _split(arguments)
                         if argument.strip() and argument.strip() != "*"]
                schemas[name] = types
    # Out variants torchgen generates (`autogen: slice_copy.Tensor_out`) have no func line
    # of their own: the functional schema with the out tensor last.
    for name, types in list(schemas.items()):
        base, _, overload = name.partition(".")
        for out in ([f"{base}.out"] if not overload else [f"{name}_out", f"{base}.out"]):
            schemas.setdefault(out, types + ["Tensor(a!)"])
    return schemas


def _split(arguments: str) -> list[str]:
    """Top-level comma-separated parts (defaults like `int[1] dim=[]` have no commas
    inside brackets that matter, but keep brackets whole anyway)."""
    parts, depth, current = [], 0, ""
    for character in arguments:
        if character in "[(":
            depth += 1
        elif character in "])":
            depth -= 1
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    parts.append(current)
    return parts


def program_dtypes(program, schemas: dict[str, list[str]]) -> dict[str, set[int]]:
    """Operator -> the dtypes its kernels may switch on in `program` (an
    exir.schema.Program; the module docstring says which)."""
    used: dict[str, set[int]] = {}
    for plan in program.execution_plan:
        names = [op.name + (f".{op.overload}" if op.overload else "") for op in plan.operators]
        for chain in plan.chains:
            for instruction in chain.instructions:
                call = instruction.instr_args
                if type(call).__name__ != "KernelCall":
                    continue
                name = names[call.op_index]
                types = schemas.get(name)
                dtypes = used.setdefault(name, set())
                for position, index in enumerate(call.args):
                    _add_value(plan, plan.values[index].val, dtypes,
                               scalar=types is None or position >= len(types) or types[position].startswith("Scalar"))
    for dtypes in used.values():
        if dtypes & {_HALF, _BFLOAT16}:
            dtypes.add(_FLOAT)
    return used


def _add_value(plan, value, dtypes: set[int], scalar: bool) -> None:
    kind = type(value).__name__
    if kind == "Tensor":
        dtypes.add(int(value.scalar_type))
    elif kind in ("TensorList", "OptionalTensorList"):
        for item in value.items:
            if item >= 0:
                _add_value(plan, plan.values[item].val, dtypes, scalar=False)
    elif kind in _SCALAR_VALUE and scalar:
        dtypes.add(_SCALAR_VALUE[kind])


def merge(selections: list[dict[str, set[int]]]) -> dict[str, set[int]]:
    merged: dict[str, set[int]] = {}
    for selection in selections:
        for name, dtypes in selection.items():
            merged.setdefault(name, set()).update(dtypes)
    return merged


def prelude(dtypes: set[int] | None) -> str:
    """The first lines of a kernel file's copy: its dtype predicate and ExecuTorch's
    check, before anything else (None: every dtype, the check off)."""
    if dtypes is None:
        return ""
    condition = " || ".join(f"(t) == ::executorch::aten::ScalarType::{DTYPE_NAMES[d]}" for d in sorted(dtypes))
    return (
        "// pteforge (third_party/executorch/kernel_dtypes.py): this file's kernels keep the dtypes\n"
        f"// their operators use in the programs: {', '.join(DTYPE_NAMES[d] for d in sorted(dtypes))}.\n"
        "#define EXECUTORCH_SELECTIVE_BUILD_DTYPE\n"
        f"#define PTEFORGE_SELECTED_DTYPE(t) ({condition or 'false'})\n"
        "#include <executorch/kernels/portable/cpu/selective_build.h>\n"
    )


SELECTED_OP_VARIANTS_H = """\
#pragma once
// Generated by pteforge (third_party/executorch/kernel_dtypes.py), for ExecuTorch's
// kernels/portable/cpu/selective_build.h: the dtypes of the including kernel file,
// PTEFORGE_SELECTED_DTYPE from its first lines, whatever name its switch gives.
inline constexpr bool should_include_kernel_dtype(
    const char* /*switch name*/, executorch::aten::ScalarType t) {
  return PTEFORGE_SELECTED_DTYPE(t);
}
"""


def report(operators: list[str], dtypes: dict[str, set[int]] | None, primitive_operators: list[str]) -> str:
    """kernels.json: each registered operator and the dtypes its kernel keeps, and the
    primitive operators a microcontroller image registers."""
    return json.dumps({
        "selection": "the operators and dtypes of the programs" if dtypes is not None else "every kernel",
        "operators": {name: (sorted(DTYPE_NAMES[d] for d in dtypes.get(name, set())) if dtypes is not None else "all")
                      for name in operators},
        "primitive_operators": primitive_operators,
    }, indent=2) + "\n"
