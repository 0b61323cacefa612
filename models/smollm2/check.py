"""Checks causal-LM programs with a chat template on real text (docs/llm.md), on demand:

    bazel-bin/models/smollm2/check --folder=DIR --program=float32.pte \\
        [--compare=int8.pte --compare=int4.pte] [--llama_cpp=Q8_0,Q4_0] [--gguf=FILE.gguf] \\
        [--work_dir=DIR] [--out=check.json]

- greedy tokens of --program equal transformers' on the folder's model (the dequantized
  GGUF for SmolLM2) for PROMPTS, each a one-turn chat, and for a 3-turn CONVERSATION,
  which the program runs turn by turn with its cache kept (pteforge.llm.chat) while
  transformers generates each reply from the whole conversation's ids;
- agreement with --program: every other engine's replies of at most --tokens tokens
  (ending at the end-of-turn token) on the same prompts and conversation, fed the same
  token ids (the chat template rendered and tokenized here, once, for all of them):
  how many of a reply's tokens equal --program's before the first difference. The
  engines: each --compare program (quantized ones), llama.cpp on the folder converted by
  llama.cpp's own converter to each --llama_cpp type (kept in --work_dir), and llama.cpp
  on each --gguf file as it is (the file the folder was read from). Each runs the
  conversation as its own chat, keeping its cache: a turn after one that differed
  continues another conversation (the JSON says so per turn).
llama.cpp runs in its own venv (tools/llama_cpp/setup builds it the first time: about
10 minutes) through benchmarks/llama_cpp_worker.py --serve, on one thread.
Prints one line per prompt and writes the figures as JSON. Exit status 1 when --program
differs from transformers, 2 on bad flags.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from absl import app, flags

from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("folder", None, "The Hugging Face folder (//models/smollm2:smollm2_instruct).")
flags.DEFINE_string("program", None, "The float32 .pte.")
flags.DEFINE_multi_string("compare", [], "Quantized .pte files to measure against --program.")
flags.DEFINE_list("llama_cpp", [], "llama.cpp conversions of --folder to measure: Q8_0, Q4_0, F32.")
flags.DEFINE_multi_string("gguf", [], "GGUF files for llama.cpp to run as they are (the wheel's Q4_1).")
flags.DEFINE_string("work_dir", None, "Where llama.cpp's conversions are made and kept (default: a temporary "
                    "folder).")
flags.DEFINE_integer("tokens", 32, "At most this many tokens per reply.")
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


def _llama_cpp_generate(server, stops):
    """The same over llama.cpp's kept cache (benchmarks/llama_cpp_engine.Server)."""
    server.reset()
    return lambda ids, max_new_tokens: server.generate(ids, max_new_tokens, stops)


def _agreement(theirs: list[int], ours: list[int]) -> dict:
    """Tokens of `theirs` equal to `ours` before the first difference, out of ours."""
    equal = next((i for i, (x, y) in enumerate(zip(theirs, ours)) if x != y), min(len(theirs), len(ours)))
    return {"equal_prefix": equal, "of": len(ours), "identical": theirs == ours}


def _llama_cpp_servers(n_ctx: int) -> dict:
    from benchmarks import llama_cpp_engine

    if not FLAGS.llama_cpp and not FLAGS.gguf:
        return {}
    setup, worker = llama_cpp_engine.default_paths()
    python = llama_cpp_engine.setup_python(setup)
    work_dir = FLAGS.work_dir or tempfile.mkdtemp(prefix="smollm2-check-")
    servers = {}
    for weights in FLAGS.llama_cpp:
        print(f"check: llama.cpp {weights} from {FLAGS.folder} (converted once into {work_dir})", file=sys.stderr)
        # With a placeholder tokenizer of the vocabulary's size: llama.cpp is fed ids, so
        # its tokenizer is never used, and the converter's transformers (4.57) cannot load
        # the folder's (tokenizer_config.json names transformers 5's TokenizersBackend).
        servers[f"llama.cpp {weights}"] = llama_cpp_engine.Server(
            python, worker, hf_model=FLAGS.folder, work_dir=work_dir, weights=weights, tokenizer="placeholder",
            n_ctx=n_ctx)
    for path in FLAGS.gguf:
        servers[f"llama.cpp {os.path.basename(path)}"] = llama_cpp_engine.Server(python, worker, gguf=path,
                                                                                  n_ctx=n_ctx)
    return servers


def _summary(figures: dict, labels: list[str]) -> dict:
    summary = {}
    for label in labels:
        rows = [row["agreement"][label] for row in figures["prompts"]]
        turns = [turn["agreement"][label] for turn in figures["conversation"]["turns"]]
        summary[label] = {
            "prompt_tokens_equal": sum(r["equal_prefix"] for r in rows), "prompt_tokens": sum(r["of"] for r in rows),
            "prompts_identical": sum(r["identical"] for r in rows), "prompts": len(rows),
            "turn_tokens_equal": [t["equal_prefix"] for t in turns], "turn_tokens": [t["of"] for t in turns],
        }
    return summary


def main(argv: list[str]) -> int:
    quiet_dependencies()
    import transformers

    from pteforge.llm import load_causal_lm
    from pteforge.llm.chat import Conversation, transformers_generate
    from pteforge.llm.chat_template import derive_chat_format

    if len(argv) > 1 or not FLAGS.folder or not FLAGS.program:
        print("usage: check --folder=DIR --program=PTE [--compare=PTE ...] [--llama_cpp=Q8_0,Q4_0] [--gguf=FILE]",
              file=sys.stderr)
        return 2
    missing = [path for path in [FLAGS.program, *FLAGS.compare, *FLAGS.gguf] if not os.path.isfile(path)]
    if missing or not os.path.isdir(FLAGS.folder):
        print(f"check: no such file or folder: {', '.join(missing) or FLAGS.folder}", file=sys.stderr)
        return 2
    model = transformers.AutoModelForCausalLM.from_pretrained(FLAGS.folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(FLAGS.folder)
    chat_format = derive_chat_format(tokenizer, FLAGS.folder)
    lm = load_causal_lm(FLAGS.program)
    # label -> a function of the stop ids that starts a conversation and returns its generate
    engines = {os.path.basename(path): lambda stops, o=load_causal_lm(path): _program_generate(o, stops)
               for path in FLAGS.compare}
    servers = _llama_cpp_servers(lm.max_seq_len)
    engines.update({label: lambda stops, s=server: _llama_cpp_generate(s, stops) for label, server in servers.items()})

    def chat(users, start):
        conversation = Conversation(tokenizer, chat_format, None, lm.max_seq_len)
        stops = conversation.stops(list(lm.eos_token_ids))
        one = start(stops)  # one generator a conversation: an engine keeps its cache through it
        return [conversation.turn(user, one, FLAGS.tokens, stops)[0] for user in users]

    reference = lambda stops: transformers_generate(model, stops)  # noqa: E731
    ours = lambda stops: _program_generate(lm, stops)  # noqa: E731
    text = lambda ids: tokenizer.decode(ids, skip_special_tokens=True)  # noqa: E731
    figures = {"tokens": FLAGS.tokens, "program": FLAGS.program, "engines": list(engines), "prompts": []}
    equal = True
    try:
        for prompt in PROMPTS:
            (expected,) = chat([prompt], reference)
            (got,) = chat([prompt], ours)
            row = {"prompt": prompt, "equal_to_transformers": got == expected, "tokens": len(got), "text": text(got),
                   "agreement": {}, "texts": {}}
            for label, start in engines.items():
                (theirs,) = chat([prompt], start)
                row["agreement"][label] = _agreement(theirs, got)
                row["texts"][label] = text(theirs)
            equal &= row["equal_to_transformers"]
            figures["prompts"].append(row)
            print(json.dumps(row, ensure_ascii=False))
        expected = chat(CONVERSATION, reference)
        got = chat(CONVERSATION, ours)
        theirs = {label: chat(CONVERSATION, start) for label, start in engines.items()}
        turns = []
        for i, reply in enumerate(got):
            turns.append({"user": CONVERSATION[i], "text": text(reply),
                          "agreement": {label: dict(_agreement(replies[i], reply),
                                                    same_context=replies[:i] == got[:i])
                                        for label, replies in theirs.items()},
                          "texts": {label: text(replies[i]) for label, replies in theirs.items()}})
        figures["conversation"] = {"equal_to_transformers": got == expected, "turns": turns}
        equal &= got == expected
        print(json.dumps(figures["conversation"], ensure_ascii=False))
    finally:
        for server in servers.values():
            server.close()
    figures["summary"] = _summary(figures, list(engines))
    for label, row in figures["summary"].items():
        print(f"{label}: {row['prompt_tokens_equal']} of {row['prompt_tokens']} tokens of {row['prompts']} replies "
              f"equal before the first difference ({row['prompts_identical']} identical); conversation turns "
              f"{row['turn_tokens_equal']} of {row['turn_tokens']}")
    if FLAGS.out:
        with open(FLAGS.out, "w", encoding="utf-8") as f:
            json.dump(figures, f, ensure_ascii=False, indent=1)
    return 0 if equal else 1


if __name__ == "__main__":
    app.run(main)
