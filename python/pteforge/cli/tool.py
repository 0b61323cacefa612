"""The `pteforge` command: tools over what the exporter wrote.

    pteforge report --svg=plan.svg model.report.json     the memory plan as a picture
    pteforge report model.report.json                     the report's summary, as text

In this repository: ./bazelw run //python/pteforge/cli:tool -- report --svg=... (paths
relative to the workspace). Exit status: 0 on success, 1 if a file cannot be read or
written, 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from pteforge.report import plan_svg


def _report(args: argparse.Namespace) -> int:
    try:
        with open(args.report, encoding="utf-8") as handle:
            report = json.load(handle)
        summary = _summary(report)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"pteforge report: error: {args.report} is not a readable pteforge report ({error})", file=sys.stderr)
        return 1
    if args.svg is None:
        print(summary)
        return 0
    text = plan_svg.render(report)
    temporary = args.svg + ".tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, args.svg)
    except OSError as error:
        print(f"pteforge report: error: cannot write {args.svg} ({error})", file=sys.stderr)
        return 1
    print(f"wrote the memory plan of {report['name']} to {args.svg}")
    return 0


def _summary(report: dict) -> str:
    # pteforge.report.report.summary without importing torch (pteforge.report.report does).
    memory = report["memory"]
    return (f"{report['name']} ({report['backend']}): {len(report['methods'])} methods, "
            f"{len(report['state'])} state buffers; planned memory "
            f"{plan_svg.size_text(memory['total_planned_bytes_shared'])} "
            f"({plan_svg.size_text(memory['state_arena_bytes'])} state + "
            f"{plan_svg.size_text(memory['work_arena_bytes_shared'])} work), "
            f"{plan_svg.size_text(memory['total_planned_bytes_separate'])} with one arena per method")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pteforge", description="Tools over pteforge's outputs.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="summarize a report, or draw its memory plan")
    report.add_argument("report", help="a <name>.report.json the exporter wrote")
    report.add_argument("--svg", help="write the memory plan as an SVG picture here")
    report.set_defaults(run=_report)
    args = parser.parse_args(argv)
    return args.run(args)


def console_main() -> None:
    """The installed `pteforge` command."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    console_main()
