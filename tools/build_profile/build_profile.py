"""Where a Bazel command spent its time, from the JSON trace profile Bazel writes for every
command (<output_base>/command.profile.gz, replaced by the next command; --profile=FILE
keeps one): the actions' time by kind (the first word of their progress message: Testing,
Compiling, Exporting, ...) and the longest actions. Bazel 4.2.3's own `analyze-profile`
prints the phases and the critical path, not these; a cold `bazel test //...` on two cores
is bound by the sum of its actions, so this is what to read before trimming the suite
(docs/bazel.md, "Where a cold test run spends its time").

    python3 tools/build_profile/build_profile.py PROFILE.gz [--top=30]

Standard library only. An action's time is its wall time in Bazel's "action processing"
events; two actions running at once both count.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import sys


def actions(profile: dict | list) -> list[tuple[str, float]]:
    """(description, seconds) of each action a profile records."""
    events = profile.get("traceEvents", []) if isinstance(profile, dict) else profile
    return [(e.get("name", ""), e.get("dur", 0) / 1e6) for e in events
            if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "action processing"]


def by_kind(timed: list[tuple[str, float]]) -> list[tuple[str, float, int]]:
    """(kind, seconds, count), most time first; the kind is the description's first word."""
    seconds, counts = collections.Counter(), collections.Counter()
    for name, duration in timed:
        kind = name.split(" ", 1)[0] or "(unnamed)"
        seconds[kind] += duration
        counts[kind] += 1
    return [(kind, total, counts[kind]) for kind, total in seconds.most_common()]


def read(path: str) -> dict | list:
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, EOFError, ValueError) as error:  # ValueError: bad JSON, or not UTF-8
        sys.exit(f"build_profile: {path}: not a readable Bazel JSON profile ({error}); Bazel writes one per "
                 "command as <output_base>/command.profile.gz")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", help="a Bazel JSON trace profile (.json or .json.gz / command.profile.gz)")
    parser.add_argument("--top", type=int, default=30, help="how many of the longest actions to list")
    args = parser.parse_args(argv)
    timed = actions(read(args.profile))
    if not timed:
        sys.exit(f"build_profile: {args.profile}: no action in this profile (a command that ran nothing?)")
    total = sum(duration for _, duration in timed)
    print(f"{len(timed)} actions, {total:.1f} s of action time\n\n| kind | seconds | share | actions |\n|---|---|---|---|")
    for kind, seconds, count in by_kind(timed):
        print(f"| {kind} | {seconds:.1f} | {100 * seconds / total:.1f}% | {count} |")
    print(f"\nThe {min(args.top, len(timed))} longest actions:\n\n| seconds | action |\n|---|---|")
    for name, duration in sorted(timed, key=lambda item: -item[1])[:args.top]:
        print(f"| {duration:.1f} | {name} |")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader stopped early (| head): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
