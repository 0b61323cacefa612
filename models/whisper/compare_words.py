"""Word timestamps of two transcripts side by side: pteforge's `transcribe --format=json
--word_timestamps` against faster-whisper's (faster_whisper_reference --word_timestamps).

    bazel run //models/whisper:compare_words -- reference.json ours.json [--tolerance=0.2]

pairs the two word sequences (difflib's matching blocks over the words' text, so a word
one engine heard and the other did not shifts nothing) and prints, as JSON, how many of
the reference's words have a partner and how many of those start and end within
--tolerance seconds of it (issue 49's goal: 95% within 0.2 s), with the largest
differences.
"""

from __future__ import annotations

import difflib
import json
import sys
from typing import Any


def words(transcript: dict[str, Any]) -> list[dict[str, Any]]:
    """Every segment's words, in order; ValueError when a segment has none listed."""
    found = []
    for segment in transcript["segments"]:
        if "words" not in segment or segment["words"] is None:
            raise ValueError(f"segment {segment.get('id')} has no words: was it made with --word_timestamps?")
        found.extend(segment["words"])
    return found


def compare(reference: dict[str, Any], ours: dict[str, Any], tolerance: float = 0.2) -> dict[str, Any]:
    theirs, mine = words(reference), words(ours)
    matcher = difflib.SequenceMatcher(a=[w["word"] for w in theirs], b=[w["word"] for w in mine], autojunk=False)
    pairs = [(theirs[block.a + k], mine[block.b + k]) for block in matcher.get_matching_blocks()
             for k in range(block.size)]
    gaps = [max(abs(a["start"] - b["start"]), abs(a["end"] - b["end"])) for a, b in pairs]
    within = sum(gap <= tolerance + 1e-9 for gap in gaps)
    return {
        "reference_words": len(theirs),
        "our_words": len(mine),
        "paired_words": len(pairs),
        "within_tolerance": within,
        "tolerance_s": tolerance,
        "share_within": within / len(theirs) if theirs else 1.0,
        "exact_times": sum(gap < 0.005 for gap in gaps),
        "largest_differences_s": sorted(gaps, reverse=True)[:5],
    }


def main(argv: list[str]) -> int:
    tolerance = 0.2
    paths = []
    for arg in argv[1:]:
        if arg.startswith("--tolerance="):
            tolerance = float(arg.split("=", 1)[1])
        else:
            paths.append(arg)
    if len(paths) != 2:
        print("usage: compare_words reference.json ours.json [--tolerance=0.2]", file=sys.stderr)
        return 2
    try:
        transcripts = []
        for path in paths:
            with open(path, encoding="utf-8") as file:
                transcripts.append(json.load(file))
        print(json.dumps(compare(*transcripts, tolerance=tolerance), indent=1))
    except (OSError, ValueError, KeyError) as error:
        print(f"compare_words: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
