"""Word error rate of a transcription against what was said, after a small normalizer
that takes away what espeak-ng speech cannot tell apart:

- case: lowercase;
- numbers: Whisper writes what espeak-ng says as "four hundred" as "400" and "twelve
  percent" as "12%"; digits become words ("400" -> "four hundred", "12.5" -> "twelve point
  five", "9:30" -> "nine thirty", "1,000" -> "one thousand"; no "and" inside a number), "%"
  becomes "percent" and "&" "and";
- punctuation: apostrophes are dropped ("don't" -> "dont"), every other character that
  is not a letter or a digit separates words (hyphens included).

Not handled (keep scripts clear of them): ordinals ("21st"), currencies, years read as
pairs ("1999" is "one thousand nine hundred ninety nine"), spelled-out and written forms
of the same contraction ("we are" / "we're" count as errors, as they should for a word
error rate).

    wer("More than 400 people.", "More than four hundred people.")  # 0.0

As a command (bazel run //models/whisper:wer -- REFERENCE HYPOTHESIS): each a text file;
a reference in long_script.txt's form ("voice|pause|sentence" lines, # comments) is
read as its sentences, a hypothesis that is faster_whisper_reference's JSON as its text.
Prints the word error rate, the errors and the reference's word count.
"""

from __future__ import annotations

import json
import os
import re
import sys

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = [(10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")]


def number_words(number: int) -> list[str]:
    """A whole number as English words, without "and" ("one hundred five")."""
    if number < 20:
        return [_ONES[number]]
    if number < 100:
        return [_TENS[number // 10]] + ([_ONES[number % 10]] if number % 10 else [])
    for scale, name in _SCALES:
        if number >= scale:
            rest = number % scale
            return number_words(number // scale) + [name] + (number_words(rest) if rest else [])
    raise AssertionError("unreachable")


def _digits_as_words(match: re.Match) -> str:
    whole, fraction = match.group(1).replace(",", ""), match.group(2)
    words = number_words(int(whole))
    if fraction:
        words += ["point"] + [_ONES[int(digit)] for digit in fraction]
    return " " + " ".join(words) + " "


def normalize(text: str) -> list[str]:
    """The words of `text` as the word error rate compares them (see the module's docstring)."""
    text = text.lower().replace("%", " percent ").replace("&", " and ")
    text = re.sub(r"(\d)[:](\d)", r"\1 \2", text)  # times: 9:30
    text = re.sub(r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?", _digits_as_words, text)
    text = text.replace("'", "").replace("\u2019", "")
    return re.sub(r"[^a-z0-9]+", " ", text).split()


def word_errors(hypothesis: str, reference: str) -> tuple[int, int]:
    """(substitutions + insertions + deletions, the reference's words), after normalize()."""
    ours, theirs = normalize(hypothesis), normalize(reference)
    row = list(range(len(theirs) + 1))
    for i, word in enumerate(ours, 1):
        diagonal, row[0] = row[0], i
        for j, other in enumerate(theirs, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (word != other))
    return row[-1], len(theirs)


def wer(hypothesis: str, reference: str) -> float:
    """The word error rate of `hypothesis` against `reference` (may exceed 1)."""
    errors, words = word_errors(hypothesis, reference)
    if not words:
        raise ValueError("the reference has no words")
    return errors / words


def read_reference(path: str) -> str:
    """A reference text file; long_script.txt's form ("voice|pause|sentence") as its sentences."""
    with open(path, encoding="utf-8") as file:
        lines = [line.strip() for line in file if line.strip() and not line.startswith("#")]
    return " ".join(line.rsplit("|", 1)[-1] for line in lines)


def read_hypothesis(path: str) -> str:
    """A hypothesis text file; faster_whisper_reference's JSON as its text."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    try:
        return json.loads(text)["text"]
    except (ValueError, KeyError, TypeError):
        return text


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: wer REFERENCE HYPOTHESIS", file=sys.stderr)
        return 2
    # `bazel run` starts the command in its runfiles; the user's paths are from where they were.
    reference, hypothesis = (os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), path) for path in argv[1:])
    errors, words = word_errors(read_hypothesis(hypothesis), read_reference(reference))
    print(f"WER {errors / words:.2%} ({errors} errors in {words} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
