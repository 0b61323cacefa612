"""Text to text with a seq2seq .pte in ExecuTorch's Python runtime: the program's own
tokenizer (tokenizer.json, stored at export) and generate()'s search (generation.py).

    python -m pteforge.seq2seq.generate_text --model=t5.pte [--beams=4] [--max_length=64] TEXT...

Each argument is one source; the generated text is printed one line per source, and
with --ids the token ids as well. Whisper programs take audio features, not text: the
Python API (load_seq2seq(...).generate(features)) runs them.
"""

from __future__ import annotations

import os
import sys

from absl import app, flags

from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("model", None, "A .pte from export_seq2seq_lm / pteforge-export --hf_seq2seq.")
flags.DEFINE_integer("beams", 0, "Beams (0: the model's num_beams).")
flags.DEFINE_integer("max_length", 0, "Decoder positions, the start token included (0: the model's max_length).")
flags.DEFINE_bool("ids", False, "Also print the generated token ids.")


def _fail(message: str) -> int:
    print(f"generate_text: error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    quiet_dependencies()
    from tokenizers import Tokenizer

    from pteforge.run.runtime import ExecutorchError
    from pteforge.seq2seq.generation import load_seq2seq

    texts = argv[1:]
    if not FLAGS.model or not texts:
        return _fail("give --model=PTE and at least one text")
    if not os.path.isfile(FLAGS.model):
        return _fail(f"--model={FLAGS.model}: no such file")
    try:
        program = load_seq2seq(FLAGS.model)
    except (ValueError, OSError, ExecutorchError) as error:
        return _fail(f"{FLAGS.model}: {error}")
    if program.speech:
        return _fail(f"{FLAGS.model} is a speech model (its encoder takes audio features, not text)")
    if "tokenizer_json" not in program.program.method_names:
        return _fail(f"{FLAGS.model} was exported without a tokenizer (export with tokenizer_dir, or a model "
                     "folder holding tokenizer.json)")
    tokenizer = Tokenizer.from_str(bytes(program.constant("tokenizer_json").numpy().tobytes()).decode("utf-8"))
    sources = [tokenizer.encode(text).ids for text in texts]
    try:
        generated = program.generate(sources, num_beams=FLAGS.beams or None, max_length=FLAGS.max_length or None)
    except ValueError as error:
        return _fail(str(error))
    for ids in generated:
        print(tokenizer.decode(ids, skip_special_tokens=True))
        if FLAGS.ids:
            print(" ".join(map(str, ids)))
    return 0


if __name__ == "__main__":
    app.run(lambda argv: sys.exit(main(argv)))
