"""Entry point: python -m pteforge.export --model=package.module:factory --out=x.pte

See pteforge.cli for the flags.
"""

import sys

from absl import app

from pteforge import cli


def _run(argv: list[str]) -> None:
    sys.exit(cli.main(argv))


if __name__ == "__main__":
    app.run(_run)
