"""Generates the kernel registration for the operators that given .pte programs use.

    select_kernels.py --program=a.pte [--program=b.pte ...] | --all_operators
        --functions_yaml=kernels/portable/functions.yaml
        --quantized_yaml=kernels/quantized/quantized.yaml
        --prim_ops=kernels/prim_ops/register_prim_ops.cpp
        --templates=codegen/templates/RegisterKernels.h
        --out_dir=DIR

ExecuTorch's codegen (executorch.codegen.gen, with torchgen's native_functions.yaml)
writes RegisterCodegenUnboxedKernelsEverything.cpp, which registers the selected
kernels from a static initializer, and the NativeFunctions.h it includes: once for the
portable kernels (out_dir/portable) and once for the quantized ones (out_dir/quantized),
as upstream does. (In one run the namespaces collide: quantized_decomposed::add.out
would take aten::add.out's place.)
The primitive operators (executorch_prim::*, aten::sym_size, ...) are registered by
the prim_ops library itself and are not selected here. operators.txt lists what was
registered, one per line.

A program that needs an operator with no kernel in this runtime, or a delegate
(XNNPACK is not part of the runtime from source), is refused: the message names the
program, the operator or backend, and what to do.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile

import yaml

from pteforge.quiet import quiet_dependencies

# The kernel libraries, each generated on its own, and the files kept of each.
_LIBRARIES = ("portable", "quantized")
_OUTPUTS = ("RegisterCodegenUnboxedKernelsEverything.cpp", "NativeFunctions.h")


class SelectionError(Exception):
    """A program this runtime cannot run; the message says why and what to do."""


def yaml_operators(path: str) -> set[str]:
    """Operator names (namespace::name.overload) with a kernel in a functions yaml."""
    with open(path) as f:
        entries = yaml.safe_load(f) or []
    names = set()
    for entry in entries:
        if "op" in entry:  # portable: "add.out" in the aten namespace
            name = entry["op"]
        else:  # "quantized_decomposed::add.out(Tensor a, ...) -> ..."
            name = entry["func"].split("(", 1)[0]
        names.add(name if "::" in name else "aten::" + name)
    return names


def prim_operators(path: str) -> set[str]:
    """The operators register_prim_ops.cpp registers (by their string names)."""
    with open(path) as f:
        return set(re.findall(r'"((?:aten|executorch_prim)::[A-Za-z0-9_.]+)"', f.read()))


def program_needs(path: str) -> tuple[set[str], set[str]]:
    """The operators and delegate backends of every method of a .pte file."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(path, "rb") as f:
        data = f.read()
    try:
        program = deserialize_pte_binary(data)
    except Exception as error:  # any parse failure means: not a program we can read
        raise SelectionError(f"{path} is not a readable ExecuTorch program ({error})") from error
    program = getattr(program, "program", program)
    operators, backends = set(), set()
    for plan in program.execution_plan:
        for operator in plan.operators:
            operators.add(operator.name + (f".{operator.overload}" if operator.overload else ""))
        backends.update(delegate.id for delegate in plan.delegates)
    return operators, backends


def select(programs: list[str], kernels: set[str], prims: set[str]) -> list[str]:
    """The kernel operators the programs use; raises SelectionError for what cannot run."""
    selected: set[str] = set()
    for path in programs:
        operators, backends = program_needs(path)
        if backends:
            raise SelectionError(
                f"{path} delegates to {', '.join(sorted(backends))}, which the ExecuTorch runtime "
                "built from source does not include (portable and quantized kernels only). "
                "Export it with backend='portable' (pte_export(..., backend = \"portable\"))."
            )
        missing = sorted(op for op in operators if op not in kernels and op not in prims)
        if missing:
            raise SelectionError(
                f"{path} uses operators that have no portable or quantized kernel: "
                f"{', '.join(missing)}. Rewrite the model to avoid them, or add their kernels "
                "to the runtime."
            )
        selected.update(op for op in operators if op in kernels)
    return sorted(selected)


def write_selection(path: str, operators: list[str] | None) -> None:
    """selected_operators.yaml for ExecuTorch's codegen (None: every operator)."""
    content = {
        "build_features": [],
        "custom_classes": [],
        "et_kernel_metadata": {op: ["default"] for op in operators or []},
        "include_all_non_op_selectives": False,
        "include_all_operators": operators is None,
        "kernel_metadata": {},
        "operators": {
            op: {
                "debug_info": [],
                "include_all_overloads": False,
                "is_root_operator": True,
                "is_used_for_training": False,
            }
            for op in operators or []
        },
    }
    with open(path, "w") as f:
        yaml.safe_dump(content, f)


def run_codegen(args: argparse.Namespace, library: str, selection: str, out_dir: str) -> None:
    """Runs executorch.codegen.gen (its main() reads sys.argv) for one kernel library."""
    import torchgen
    from executorch.codegen import gen

    native = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native")
    functions = (
        f"--functions-yaml-path={args.functions_yaml}"
        if library == "portable"
        else f"--custom-ops-yaml-path={args.quantized_yaml}"
    )
    argv = sys.argv
    sys.argv = [
        "executorch.codegen.gen",
        f"--source-path={os.path.dirname(os.path.dirname(args.templates))}",
        functions,
        f"--aten-yaml-path={os.path.join(native, 'native_functions.yaml')}",
        f"--tags-path={os.path.join(native, 'tags.yaml')}",
        f"--op-selection-yaml-path={selection}",
        f"--install-dir={out_dir}",
    ]
    try:
        gen.main()
    finally:
        sys.argv = argv


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--program", action="append", default=[], help="a .pte whose operators to register")
    parser.add_argument("--all_operators", action="store_true", help="register every kernel")
    parser.add_argument("--functions_yaml", required=True)
    parser.add_argument("--quantized_yaml", required=True)
    parser.add_argument("--prim_ops", required=True)
    parser.add_argument("--templates", required=True, help="any file in codegen/templates")
    parser.add_argument("--out_dir", required=True)
    args = parser.parse_args()
    quiet_dependencies()  # before executorch is imported
    if bool(args.program) == args.all_operators:
        parser.error("give --program (one or more) or --all_operators")
    kernels = yaml_operators(args.functions_yaml) | yaml_operators(args.quantized_yaml)
    try:
        operators = None if args.all_operators else select(args.program, kernels, prim_operators(args.prim_ops))
    except SelectionError as error:
        print(f"select_kernels: error: {error}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        selection = os.path.join(scratch, "selected_operators.yaml")
        write_selection(selection, operators)
        for library in _LIBRARIES:
            out_dir = os.path.join(args.out_dir, library)
            os.makedirs(out_dir, exist_ok=True)
            run_codegen(args, library, selection, out_dir)
            missing = [name for name in _OUTPUTS if not os.path.exists(os.path.join(out_dir, name))]
            if missing:
                print(f"select_kernels: error: ExecuTorch's codegen did not write {library}/"
                      f"{', '.join(missing)}", file=sys.stderr)
                return 1
    with open(os.path.join(args.out_dir, "operators.txt"), "w") as f:
        f.write("".join(op + "\n" for op in (operators if operators is not None else sorted(kernels))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
