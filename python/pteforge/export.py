"""Entry point: python -m pteforge.export --model=package.module:factory --out=x.pte
(installed: pteforge-export ...)

The flags are pteforge.cli.export's; --help lists them. An argument @FILE stands for the
arguments in FILE, one a line (as Bazel writes them); with --persistent_worker the
exporter answers Bazel's work requests (pteforge.cli.worker).
"""

import sys

from absl import app, flags

from pteforge.cli import export as cli

# --help shows the main module's flags only: make cli's this module's own.
flags.adopt_module_key_flags(cli)


def _run(argv: list[str]) -> None:
    sys.exit(cli.main(argv))


class _ArgumentFileError(Exception):
    """An @FILE argument naming a file that cannot be read."""


def _expand_argument_files(arguments: list[str]) -> list[str]:
    expanded = []
    for argument in arguments:
        if argument.startswith("@"):
            try:
                with open(argument[1:], encoding="utf-8") as handle:
                    expanded.extend(line for line in handle.read().splitlines() if line)
            except (OSError, UnicodeDecodeError) as error:
                raise _ArgumentFileError(f"{argument}: cannot read the argument file ({error})") from error
        else:
            expanded.append(argument)
    return expanded


def _run_request(arguments: list[str]) -> int:
    """One export of a persistent worker: the flags parsed afresh from `arguments`."""
    flags.FLAGS.unparse_flags()
    try:
        argv = flags.FLAGS([sys.argv[0]] + _expand_argument_files(arguments))
    except (flags.Error, _ArgumentFileError) as error:
        print(f"pteforge: error: {error}", file=sys.stderr)
        return 2
    return cli.main(argv)


def console_main() -> None:
    """The `pteforge-export` command of the installed package."""
    if "--persistent_worker" in sys.argv[1:]:
        from pteforge.cli import worker
        from pteforge.support.quiet import quiet_dependencies

        quiet_dependencies()  # before the worker imports torch
        sys.exit(worker.serve(_run_request))
    try:
        sys.argv[1:] = _expand_argument_files(sys.argv[1:])
    except _ArgumentFileError as error:
        print(f"pteforge: error: {error}", file=sys.stderr)
        sys.exit(2)
    app.run(_run)


if __name__ == "__main__":
    console_main()
