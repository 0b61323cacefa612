"""Entry point: python -m pteforge.export --model=package.module:factory --out=x.pte
(installed: pteforge-export ...)

See pteforge.cli for the flags.
"""

import sys

from absl import app

from pteforge import cli


def _run(argv: list[str]) -> None:
    sys.exit(cli.main(argv))


def console_main() -> None:
    """The `pteforge-export` command of the installed package."""
    app.run(_run)


if __name__ == "__main__":
    console_main()
