"""Writes the seed corpus of session_fuzzer: real .pte files in its input layout
(uint32 length, program, call script), each with a few call scripts, and the inputs of
past findings as they are (regressions/).

Usage: make_seed_corpus.py <output-dir> <program.pte or finding>...
"""

import os
import struct
import sys

# Call scripts (see session_fuzzer.cc): op, method choice, input bytes. The first
# runs every method with signature-shaped inputs, the others mix state access in.
_SCRIPTS = [
    bytes([0, 0, 1, 0, 1, 1, 0, 2, 2, 0, 3, 3]),
    bytes([1, 1, 2, 5, 0, 6, 0, 0, 7, 2, 0, 1]),
    bytes([3, 0, 2, 1, 4, 2, 0, 0, 0, 7]),
    b"",
]


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for path in argv[2:]:
        with open(path, "rb") as f:
            program = f.read()
        if not path.endswith(".pte"):  # a past finding: already in the input layout
            with open(os.path.join(out_dir, "regression_" + os.path.basename(path)), "wb") as out:
                out.write(program)
            continue
        stem = os.path.basename(path).removesuffix(".pte")
        for index, script in enumerate(_SCRIPTS):
            with open(os.path.join(out_dir, f"{stem}_{index}"), "wb") as out:
                out.write(struct.pack("<I", len(program)) + program + script)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
