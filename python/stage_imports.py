"""Fails when a stage of the exporter imports a stage it may not (bazel/stages.bzl).

    stage_imports.py --stage=lower --may_import=cortex_m,support \\
        --stages=support,capture,...,cli --out=FILE SOURCE.py...

Every import statement of each source counts, those inside functions too (a lazy import
is still a dependency). An import of pteforge.<stage>... names that stage: the longest
stage path that prefixes it (pteforge.lower.speedups.shortcuts is lower/speedups). An
import of a stage other than the source's own and those it may import, or of a name from
the package root (whose names are for users, and load the whole exporter), is an error,
reported as file:line with the rule it breaks. Without errors, FILE lists the stages
each source imports, and the exit status is 0; otherwise 1.

Standard library only: it runs as a build action before anything else is imported.
"""

from __future__ import annotations

import argparse
import ast
import sys
from typing import Iterator, Sequence

_ROOT = "pteforge"


def _module_of(path: str) -> list[str]:
    """The dotted package of a source, from its path: python/pteforge/lower/x.py -> pteforge.lower."""
    parts = path.replace("\\", "/").split("/")[:-1]
    if _ROOT not in parts:
        raise ValueError(f"{path} is not inside a {_ROOT}/ folder")
    return parts[len(parts) - 1 - parts[::-1].index(_ROOT):]


def imported_modules(path: str, text: str) -> Iterator[tuple[int, str]]:
    """(line, dotted module) of every import in a source, relative ones resolved. For
    `from M import a, b` each name counts as M.a and M.b: a name that is a submodule is
    then one, and any other name stays within M's stage."""
    for node in ast.walk(ast.parse(text, filename=path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = _module_of(path)
                base = package[:len(package) - node.level + 1] + ([node.module] if node.module else [])
                module = ".".join(base)
            else:
                module = node.module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}" if alias.name != "*" else module


def stage_of(module: str, stages: Sequence[str]) -> str | None:
    """The stage a pteforge module is in, "" for the package root (pteforge.X where X is
    no stage), None for modules of other packages."""
    parts = module.split(".")
    if parts[0] != _ROOT:
        return None
    matches = [stage for stage in stages if parts[1:1 + stage.count("/") + 1] == stage.split("/")]
    return max(matches, key=len) if matches else ""


def check(path: str, text: str, stage: str, may_import: Sequence[str],
          stages: Sequence[str]) -> tuple[set[str], list[str]]:
    """The stages a source imports, and one error per import it may not make."""
    used, errors = set(), []
    allowed = {stage, *may_import}
    for line, module in imported_modules(path, text):
        other = stage_of(module, stages)
        if other is None or other in allowed:
            if other:
                used.add(other)
            continue
        where = f"{path}:{line}: the {stage} stage imports {module}"
        if other == "":
            errors.append(f"{where}, a name of the package root; import it from the stage that defines it "
                          f"(pteforge.<stage>.<module>)")
        elif stages.index(other) > stages.index(stage):
            errors.append(f"{where}, in the {other} stage above it. A stage imports only stages below it "
                          f"({', '.join(may_import) or 'none'}, bazel/stages.bzl): move what it needs "
                          f"into {stage} or below, or call it from {other} or above")
        else:
            errors.append(f"{where}, in the {other} stage, which it does not declare "
                          f"(it may import {', '.join(may_import) or 'none'}); add {other} to its entry of "
                          f"STAGES in bazel/stages.bzl if it should")
    return used, errors


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stage", required=True)
    parser.add_argument("--may_import", default="")
    parser.add_argument("--stages", required=True, help="every stage, lowest first")
    parser.add_argument("--out", required=True)
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args(argv)
    stages = args.stages.split(",")
    may_import = [name for name in args.may_import.split(",") if name]
    lines, errors = [], []
    for path in args.sources:
        with open(path, encoding="utf-8") as handle:
            used, own_errors = check(path, handle.read(), args.stage, may_import, stages)
        lines.append(f"{path}: {', '.join(sorted(used)) or '-'}")
        errors += own_errors
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
