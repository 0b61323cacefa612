"""Writes a copy of a file with bits flipped at seeded positions, for damaged-program tests.

    flip_bits.py --seed=N --bits=K [--from_fraction=F] IN OUT

The positions are drawn from [F * size, size) (default F = 0.25, past the headers),
so the same seed damages the same bits every build.
"""

import argparse
import random
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--bits", type=int, required=True)
    parser.add_argument("--from_fraction", type=float, default=0.25)
    parser.add_argument("input")
    parser.add_argument("output")
    args = parser.parse_args()
    data = bytearray(open(args.input, "rb").read())
    if not data:
        print(f"flip_bits: error: {args.input} is empty", file=sys.stderr)
        return 1
    generator = random.Random(args.seed)
    start = int(len(data) * args.from_fraction)
    for _ in range(args.bits):
        position = generator.randrange(start, len(data))
        data[position] ^= 1 << generator.randrange(8)
    with open(args.output, "wb") as out:
        out.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
