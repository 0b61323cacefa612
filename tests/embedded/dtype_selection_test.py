"""Dtype-selective kernels: an image holds its kernels' code for the dtypes its program
uses, and no other (third_party/executorch/kernel_dtypes.py).

    dtype_selection_test.py --elf=<image> --report=<its pte_kernels kernels.json>
        --functions_yaml=... --quantized_yaml=...

  * kernels.json names a dtype for every operator the image registers;
  * in the image, a symbol of a kernel's own code (its lambdas and the templates
    instantiated over them: `apply_elementwise_fn_generic_impl<float, &(...::copy_(...`)
    names only C++ types of the dtypes kept for that kernel's operators, and so does
    each template instantiated over a kernel's dtype and name (that one, or
    `get_load_to_compute_fn_impl<float, &(...copy_(...` where ExecuTorch's logging is
    off and it is inlined); before the selection the same image held add, mul and copy
    for bool, unsigned char, short, long, double, Half and BFloat16 too;
  * at least one such symbol exists (the check matches what the image really holds).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

import yaml

# The C++ type of each dtype as `nm -C` prints it in template arguments.
CPP_TYPES = {
    # (On arm-none-eabi int32_t is a long.)
    "Byte": "unsigned char", "Char": "signed char", "Short": "short", "Int": "long", "Long": "long long",
    "Half": "c10::Half", "Float": "float", "Double": "double", "Bool": "bool", "BFloat16": "c10::BFloat16",
}
# Types that name a dtype only (a kernel's parameters use int, long long, bool, float too).
_DTYPE_ONLY = ("unsigned char", "signed char", "short", "c10::Half", "c10::BFloat16", "double")


def kernel_functions(*paths: str) -> dict[str, str]:
    """Kernel function (unqualified: add_out) -> the operators it implements."""
    functions: dict[str, set[str]] = {}
    for path in paths:
        with open(path) as f:
            for entry in yaml.safe_load(f):
                name = entry["op"] if "op" in entry else entry["func"].split("(", 1)[0]
                name = name if "::" in name else "aten::" + name
                for kernel in entry.get("kernels") or []:
                    functions.setdefault(kernel["kernel_name"].rsplit("::", 1)[-1], set()).add(name)
    return functions


def without_parameters(symbol: str, function: str) -> str:
    """`symbol` with `function`'s own parameter lists removed (its signature names types
    that are not dtypes: ArrayRef<long long>, bool)."""
    out, start = "", 0
    marker = f"native::{function}("
    while True:
        at = symbol.find(marker, start)
        if at < 0:
            return out + symbol[start:]
        out += symbol[start:at + len(marker) - 1]
        depth, i = 0, at + len(marker) - 1
        while i < len(symbol):
            depth += {"(": 1, ")": -1}.get(symbol[i], 0)
            i += 1
            if depth == 0:
                break
        start = i


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("elf", "report", "functions_yaml", "quantized_yaml"):
        parser.add_argument(f"--{flag}", required=True)
    args = parser.parse_args()
    with open(args.report) as f:
        kept = json.load(f)["operators"]
    failures = [f"{op}: no dtype recorded" for op, dtypes in kept.items()
                if not isinstance(dtypes, list) or (not dtypes and not op.startswith("pteforge::"))]
    functions = {function: ops & set(kept) for function, ops in
                 kernel_functions(args.functions_yaml, args.quantized_yaml).items() if ops & set(kept)}
    names = subprocess.run(["arm-none-eabi-nm", "-C", args.elf], capture_output=True, text=True, check=True).stdout
    symbols = [line.split(" ", 2)[2] for line in names.splitlines() if line.count(" ") >= 2 and line[9] in "tTwW"]
    instantiations = 0
    for symbol in symbols:
        for function, ops in functions.items():
            if f"native::{function}(" not in symbol:
                continue
            allowed = {CPP_TYPES[d] for op in ops for d in kept[op] if d in CPP_TYPES}
            text = without_parameters(symbol, function)
            for cpp in _DTYPE_ONLY:
                if re.search(r"[<,(] ?%s[,>)&* ]" % re.escape(cpp), text) and cpp not in allowed:
                    failures.append(f"{function} ({', '.join(sorted(ops))}, kept {sorted(allowed)}) has {cpp} code: {symbol[:200]}")
            # apply_elementwise_fn_generic_impl<float, &(...copy_(..., or where that is
            # inlined (ExecuTorch's logging off), get_load_to_compute_fn_impl<float, &(...
            match = re.search(r"\w+<([^,<>]+), &\(torch::executor::native::%s\(" % re.escape(function), symbol)
            if match:
                instantiations += 1
                if match.group(1) not in allowed:
                    failures.append(f"{function} is instantiated for {match.group(1)}, kept {sorted(allowed)}")
    print(f"{len(kept)} operators registered; {instantiations} instantiations over their kernels' dtypes, "
          f"each for a kept dtype")
    if not instantiations:
        failures.append("no kernel instantiation found in the image: the check sees nothing")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
