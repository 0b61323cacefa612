"""Entry point: python -m pteforge.export --model=package.module:factory --out=x.pte
(installed: pteforge-export ...)

The flags are pteforge.cli.export's; --help lists them.
"""

import sys

from absl import app, flags

from pteforge.cli import export as cli

# --help shows the main module's flags only: make cli's this module's own.
flags.adopt_module_key_flags(cli)


def _run(argv: list[str]) -> None:
    sys.exit(cli.main(argv))


def console_main() -> None:
    """The `pteforge-export` command of the installed package."""
    app.run(_run)


if __name__ == "__main__":
    console_main()
