"""Checks causal-LM programs with a chat template on real text (docs/llm.md), on demand:

    bazel-bin/models/smollm2/check --folder=DIR --program=float32.pte \\
        [--compare=int8.pte --compare=int4.pte] [--out=check.json]

- greedy tokens of --program equal transformers' on the folder's model (the dequantized
  GGUF for SmolLM2) for PROMPTS, each a one-turn chat, and for a 3-turn CONVERSATION,
  which the program runs turn by turn with its cache kept (pteforge.llm.chat) while
  transformers generates each reply from the whole conversation's ids;
- each --compare program's first TOKENS tokens against --program's on the same prompts:
  how many agree before the first difference.
Prints one line per prompt and writes the figures as JSON. Exit status 1 when --program
differs from transformers.
"""

from __future__ import annotations

import json
import sys

from absl import app, flags

from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("folder", None, "The Hugging Face folder (//models/smollm2:smollm2_instruct).")
flags.DEFINE_string("program", None, "The float32 .pte.")
flags.DEFINE_multi_string("compare", [], "Quantized .pte files to measure against --program.")
flags.DEFINE_integer("tokens", 32, "Tokens generated per prompt.")
flags.DEFINE_string("out", None, "Also write the figures here (JSON).")

PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain in two sentences why the sky is blue.",
    "List three fruits that are red.",
    "How many legs does a spider have?",
    "Translate 'good morning' into Portuguese.",
]
CONVERSATION = ["What is the capital of France?", "And what is it famous for?", "Thank you! Summarize that in "
                "five words."]


def _program_generate(lm, stops):
    """A greedy reply from a program whose cache holds a prefix of `ids` (emptied first:
    one per conversation)."""
    lm.reset()

    def generate(ids, max_new_tokens):
        logits = lm.prefill(ids[lm.position:])
        reply = []
        while True:
            reply.append(int(logits.argmax()))
            if reply[-1] in stops or len(reply) == max_new_tokens:
                return reply
            logits = lm.decode_step(reply[-1])
    return generate


def _agreement(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def main(argv: list[str]) -> int:
    quiet_dependencies()
    import transformers

    from pteforge.llm import load_causal_lm
    from pteforge.llm.chat import Conversation, transformers_generate
    from pteforge.llm.chat_template import derive_chat_format

    if len(argv) > 1 or not FLAGS.folder or not FLAGS.program:
        print("usage: check --folder=DIR --program=PTE [--compare=PTE ...]", file=sys.stderr)
        return 2
    model = transformers.AutoModelForCausalLM.from_pretrained(FLAGS.folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(FLAGS.folder)
    chat_format = derive_chat_format(tokenizer, FLAGS.folder)
    lm = load_causal_lm(FLAGS.program)
    others = {path: load_causal_lm(path) for path in FLAGS.compare}

    def chat(users, generate):
        conversation = Conversation(tokenizer, chat_format, None, lm.max_seq_len)
        stops = conversation.stops(list(lm.eos_token_ids))
        one = generate(stops)  # one generator a conversation: a program keeps its cache through it
        return [conversation.turn(user, one, FLAGS.tokens, stops)[0] for user in users]

    reference = lambda stops: transformers_generate(model, stops)  # noqa: E731
    figures = {"prompts": [], "conversation": {}}
    equal = True
    for prompt in PROMPTS:
        (expected,) = chat([prompt], reference)
        (got,) = chat([prompt], lambda stops: _program_generate(lm, stops))
        row = {"prompt": prompt, "equal_to_transformers": got == expected, "tokens": len(got),
               "text": tokenizer.decode(got, skip_special_tokens=True)}
        for path, other in others.items():
            (theirs,) = chat([prompt], lambda stops, o=other: _program_generate(o, stops))
            row[path] = _agreement(theirs, got)
        equal &= row["equal_to_transformers"]
        figures["prompts"].append(row)
        print(json.dumps(row, ensure_ascii=False))
    expected = chat(CONVERSATION, reference)
    got = chat(CONVERSATION, lambda stops: _program_generate(lm, stops))
    figures["conversation"] = {"equal_to_transformers": got == expected,
                               "replies": [tokenizer.decode(r, skip_special_tokens=True) for r in got]}
    equal &= got == expected
    print(json.dumps(figures["conversation"], ensure_ascii=False))
    if FLAGS.out:
        with open(FLAGS.out, "w", encoding="utf-8") as f:
            json.dump(figures, f, ensure_ascii=False, indent=1)
    return 0 if equal else 1


if __name__ == "__main__":
    app.run(main)
