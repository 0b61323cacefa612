"""Writes the seed corpus of session_fuzzer: real .pte files in its input layout
(uint32 length, program, call script), each with a few call scripts, and the inputs of
past findings as they are (regressions/).

Usage: make_seed_corpus.py <output-dir> <program.pte>... [--regressions <finding>...]
"""

import os
import struct
import sys

import seed_corpus_tool

# Call scripts (see session_fuzzer.cc): op, method choice, input bytes. The first
# runs every method with signature-shaped inputs, the others mix state access in.
_SCRIPTS = [
    bytes([0, 0, 1, 0, 1, 1, 0, 2, 2, 0, 3, 3]),
    bytes([1, 1, 2, 5, 0, 6, 0, 0, 7, 2, 0, 1]),
    bytes([3, 0, 2, 1, 4, 2, 0, 0, 0, 7]),
    b"",
]


def seeds_of(path: str):
    """The seeds of one program: it with each call script."""
    with open(path, "rb") as f:
        program = f.read()
    stem = os.path.basename(path).removesuffix(".pte")
    for index, script in enumerate(_SCRIPTS):
        yield f"{stem}_{index}", struct.pack("<I", len(program)) + program + script


if __name__ == "__main__":
    sys.exit(seed_corpus_tool.main(sys.argv, seeds_of, __doc__))
