"""The command line every seed corpus tool shares (seed_corpus.bzl):

    tool <output-dir> <source>... [--regressions <finding>...]

Each source becomes the seeds the tool's `seeds_of` makes of it; each finding (a past
fuzzer input, already in the fuzzer's input layout) is copied as regression_<name>.
"""

import os
import sys
from collections.abc import Callable, Iterable


def main(argv: list[str], seeds_of: Callable[[str], Iterable[tuple[str, bytes]]], usage: str) -> int:
    """Writes the seeds of argv's sources and its findings; returns the exit status."""
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rest = argv[2:]
    split = rest.index("--regressions") if "--regressions" in rest else len(rest)
    for path in rest[:split]:
        for name, data in seeds_of(path):
            with open(os.path.join(out_dir, name), "wb") as out:
                out.write(data)
    for path in rest[split + 1:]:
        with open(path, "rb") as finding, open(os.path.join(out_dir, "regression_" + os.path.basename(path)), "wb") as out:
            out.write(finding.read())
    return 0
