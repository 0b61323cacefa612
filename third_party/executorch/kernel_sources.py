"""Which of ExecuTorch's kernel source files define the kernels a selection registers.

pte_kernels compiles only these: a program of 8 operators needs 8 of the 182 portable
and quantized op_*.cpp files, and compiling all of them for every target (aarch64, the
Cortex-M55) was the largest part of a cold build. The link would have dropped the
others anyway (they were an archive); now they are never compiled.

The functions yaml names each operator's kernel function (`kernel_name:
torch::executor::add_out`); the source file is the one that defines it at namespace
scope (`Tensor& add_out(`), else, for kernels a macro defines
(`DEFINE_UNARY_UFUNC(acos_out, ...)`), the one that names it. Each kept file is copied
with a `#line` directive naming the original, so compiler messages and `__FILE__` point
into the source tree as before.
"""

from __future__ import annotations

import os
import re

import yaml


class KernelSourceError(Exception):
    """A selected kernel whose source file cannot be found; the message says which."""


def yaml_kernels(functions_yaml: str) -> dict[str, set[str]]:
    """Operator name (namespace::name.overload) -> its unqualified kernel function names
    (add_out), for every operator of a functions yaml (portable: `op: add.out`, in the
    aten namespace; others: `func: quantized_decomposed::add.out(Tensor a, ...) -> ...`)."""
    with open(functions_yaml) as f:
        entries = yaml.safe_load(f) or []
    kernels = {}
    for entry in entries:
        name = entry["op"] if "op" in entry else entry["func"].split("(", 1)[0]
        name = name if "::" in name else "aten::" + name
        kernels.setdefault(name, set()).update(
            kernel["kernel_name"].rsplit("::", 1)[-1] for kernel in entry.get("kernels") or [])
    return kernels


def kernel_functions(kernels: dict[str, set[str]], operators: set[str] | None) -> set[str]:
    """The kernel functions of `operators` among `kernels` (yaml_kernels); None: of all."""
    return {function for name, functions in kernels.items()
            if operators is None or name in operators for function in functions}


def source_files(functions: set[str], sources: list[str]) -> list[str]:
    """The files among `sources` that define `functions`; raises KernelSourceError for a
    function no file defines or names."""
    return sorted({path for paths in defining_files(functions, sources).values() for path in paths})


def defining_files(functions: set[str], sources: list[str]) -> dict[str, list[str]]:
    """Each of `functions` -> the files among `sources` that define it (source_files)."""
    texts = {}
    for path in sources:
        with open(path, encoding="utf-8") as f:
            texts[path] = f.read()
    chosen = {}
    for function in sorted(functions):
        # A definition starts a line (namespace scope); a call or a declaration inside
        # another function is indented.
        definition = re.compile(r"^[A-Za-z_][\w:<>,&*\s]*?\b%s\s*\(" % re.escape(function), re.M)
        defining = [path for path, text in texts.items() if definition.search(text)]
        if not defining:
            named = re.compile(r"\b%s\b" % re.escape(function))
            defining = [path for path, text in texts.items() if named.search(text)]
        if not defining:
            raise KernelSourceError(
                f"no kernel source defines {function} (of the {len(sources)} given): the "
                "functions yaml and the source tree disagree; point PTEFORGE_EXECUTORCH_SRC "
                "at one whole ExecuTorch tree")
        chosen[function] = sorted(defining)
    return chosen


def copy_sources(paths: list[str], library: str, out_dir: str, preludes: dict[str, str] | None = None) -> list[str]:
    """Copies each file to out_dir/<library>_<name>, a #line naming the original first
    (portable and quantized both have an op_add.cpp), after the file's prelude if
    `preludes` gives one (its dtype selection: kernel_dtypes.py); returns the copies."""
    os.makedirs(out_dir, exist_ok=True)
    copies = []
    for path in paths:
        copy = os.path.join(out_dir, f"{library}_{os.path.basename(path)}")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(copy, "w", encoding="utf-8") as f:
            f.write(f'{(preludes or {}).get(path, "")}#line 1 "{path}"\n{text}')
        copies.append(copy)
    return copies
