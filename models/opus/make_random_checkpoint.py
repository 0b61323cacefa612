"""Writes an OPUS-MT checkpoint with seeded random weights (a build action).

Usage: make_random_checkpoint.py <out_dir> <full|tiny> <source_corpus> <target_corpus>
"""

import sys

from pteforge.support.quiet import quiet_dependencies


def main(argv: list[str]) -> int:
    from models.opus.sizes import SIZES

    if len(argv) != 5 or argv[2] not in SIZES:
        print(__doc__, file=sys.stderr)
        return 2
    quiet_dependencies()
    from models.opus import checkpoint

    out_dir, size, source, target = argv[1], SIZES[argv[2]], argv[3], argv[4]
    checkpoint.make_random(out_dir, size, source, target)
    print(f"wrote a {size.name} checkpoint with UNTRAINED random weights to {out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
