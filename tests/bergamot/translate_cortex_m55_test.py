"""Real translation on the microcontroller: Bergamot en->pt on the emulated Cortex-M55
(//cc/tools:translate_cortex_m55, qemu-system-arm -M mps3-an547) gives the same text as
the x86_64 translator on the same .pte.

The host tokenizes (SentencePiece is not built for bare metal): the x86_64 translator's
--print_ids gives each sentence's source ids, its output ids and its text. The image
reads the source ids through semihosting and runs the model, the lexical shortlist and
greedy search on the device; its output ids are detokenized here with SentencePiece
(not the C++ tokenizer) and must equal the x86_64 text, and the ids the x86_64 ids.

    translate_cortex_m55_test.py --count=N    the first N sentences of at most 8 words
                                              from the repository's English set
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import sentencepiece
from runfiles import runfiles

from models.bergamot import package

_RUNFILES = runfiles.Create()
TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
IMAGE = _RUNFILES.Rlocation("pteforge/tests/bergamot/translate_cortex_m55.sh")
PROGRAM = _RUNFILES.Rlocation("pteforge/models/bergamot_enpt_mcu.pte")
SENTENCES = _RUNFILES.Rlocation("pteforge/models/bergamot/corpus/sentences_en.txt")
EOS = 0


def short_sentences(count: int) -> list[str]:
    with open(SENTENCES, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    return [line for line in lines if len(line.split()) <= 8][:count]


def run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}")
    return result.stdout


def host_translations(sentences: list[str]) -> list[tuple[str, list[int], list[int]]]:
    """(text, source ids, output ids) per sentence, from the x86_64 translator."""
    lines = run(TRANSLATE, f"--model={PROGRAM}", "--print_ids", *sentences).splitlines()
    results = []
    for text, source, output in zip(lines[0::3], lines[1::3], lines[2::3]):
        ids = [source.split(":", 1)[1].split(), output.split(":", 1)[1].split()]
        results.append((text, [int(i) for i in ids[0]], [int(i) for i in ids[1]]))
    if len(results) != len(sentences):
        sys.exit(f"FAILED: the x86_64 translator gave {len(results)} results for {len(sentences)} sentences")
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=3)
    args = parser.parse_args()
    sentences = short_sentences(args.count)
    expected = host_translations(sentences)

    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        ids_file = os.path.join(scratch, "source_ids.txt")
        with open(ids_file, "w") as f:
            f.write("".join(" ".join(map(str, source)) + "\n" for _, source, _ in expected))
        output = run(IMAGE, f"--input={ids_file}")
    print(output, end="")
    generated = [[int(i) for i in line.split()[1:]] for line in output.splitlines() if line.startswith("ids:")]
    times = [float(m.group(1)) for m in re.finditer(r"generated, (\d+) ms", output)]

    pieces = sentencepiece.SentencePieceProcessor(model_file=package.find("enpt").vocabulary)
    failures = 0
    print(f"\n{'sentence':45} {'Cortex-M55 (qemu)':40} {'emulated ms':>11}")
    for i, sentence in enumerate(sentences):
        text, _, host_ids = expected[i]
        ids = generated[i] if i < len(generated) else None
        device_text = pieces.decode_pieces([pieces.id_to_piece(t) for t in ids if t != EOS]) if ids else "(none)"
        ms = times[i] if i < len(times) else float("nan")
        print(f"{sentence[:44]:45} {device_text[:39]:40} {ms:>11.0f}")
        if ids != host_ids or device_text != text:
            print(f"  MISMATCH: x86_64 gave {text!r} {host_ids}, the Cortex-M55 {device_text!r} {ids}")
            failures += 1
    print(f"\n{len(sentences) - failures} of {len(sentences)} sentences: the Cortex-M55's text equals x86_64's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
