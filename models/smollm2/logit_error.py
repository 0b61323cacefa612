"""How far quantized programs' logits are from eager PyTorch's with the same quantization
(what the export's conformance bounds) and from float32's (what quantization itself
costs), on demand (docs/llm.md, "Not done / known limits"):

    bazel-bin/models/smollm2/logit_error --folder=DIR --program=int4.pte --quantize=int4 \\
        [--program=int8.pte --quantize=int8 ...]

Two call sequences: the export's own conformance calls (random tokens: a prompt, steps,
a second turn) and a chat prompt ("What is the capital of France?" with the chat
template) followed by the tokens of "The capital of France is", fed one at a time.
For each call, one JSON line: the float32 logits' scale (largest magnitude) and the
largest absolute differences program - eager (same quantization), program - float32
and eager - float32 (float32: the folder's model in eager PyTorch), whether the top
token is the same, and nudged_vs_eager: how far eager's own logits move when the
embeddings are nudged by one part in NUDGE (each value times 1 + N(0, 1) / NUDGE,
seeded), the size of a last-bit difference in the float arithmetic around the
quantized layers.
"""

from __future__ import annotations

import json
import sys

from absl import app, flags

from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("folder", None, "The Hugging Face folder the programs were exported from.")
flags.DEFINE_multi_string("program", [], "Quantized .pte files, each with its --quantize.")
flags.DEFINE_multi_string("quantize", [], "Each --program's quantization: int8 or int4.")

CHAT_PROMPT = "What is the capital of France?"
CHAT_REPLY = "The capital of France is"
NUDGE = 1e6


def main(argv: list[str]) -> int:
    quiet_dependencies()
    import torch
    import transformers

    from pteforge.llm import causal_lm_exporter, load_causal_lm
    from pteforge.llm.export import _conformance_calls  # the calls the export's conformance makes
    from pteforge.lower import quantize as quantize_lib
    from pteforge.support.quiet import held_back

    if len(argv) > 1 or not FLAGS.folder or not FLAGS.program or len(FLAGS.program) != len(FLAGS.quantize) \
            or any(q not in quantize_lib.QUANTIZERS for q in FLAGS.quantize):
        print("usage: logit_error --folder=DIR (--program=PTE --quantize=int8|int4) ...", file=sys.stderr)
        return 2
    with held_back():
        model = transformers.AutoModelForCausalLM.from_pretrained(FLAGS.folder, dtype=torch.float32).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(FLAGS.folder)
    chat = tokenizer.apply_chat_template([{"role": "user", "content": CHAT_PROMPT}], add_generation_prompt=True,
                                         tokenize=False)
    chat_ids = tokenizer(chat, add_special_tokens=False)["input_ids"]
    reply_ids = tokenizer(CHAT_REPLY, add_special_tokens=False)["input_ids"]
    sequences = {
        "conformance": [call.args[0][0].tolist() for call in _conformance_calls(model.config.vocab_size)],
        "chat": [chat_ids] + [[token] for token in reply_ids],
    }

    max_seq_len = load_causal_lm(FLAGS.program[0]).max_seq_len

    def eager(quantize: str | None):
        """The module the export's conformance compares against (quantized as the export does)."""
        with held_back():
            return causal_lm_exporter(model, max_seq_len, quantize).module

    def eager_logits(module, calls, nudge: bool = False):
        module.position.zero_()  # a fresh cache: positions past `position` are never read
        generator = torch.Generator().manual_seed(0)
        nudged = lambda layer, args, out: out * (1 + torch.randn(out.shape, generator=generator) / NUDGE)  # noqa: E731
        hook = module.model.get_input_embeddings().register_forward_hook(nudged) if nudge else None
        with torch.no_grad():
            logits = [module.prefill(torch.tensor([ids]))[0] for ids in calls]
        if hook:
            hook.remove()
        return logits

    def program_logits(lm, calls):
        lm.reset()
        return [lm.prefill(ids) for ids in calls]

    float32 = eager(None)
    for path, quantize in zip(FLAGS.program, FLAGS.quantize):
        quantized, lm = eager(quantize), load_causal_lm(path)
        for name, calls in sequences.items():
            reference, same, ours = (eager_logits(float32, calls), eager_logits(quantized, calls),
                                     program_logits(lm, calls))
            nudged = eager_logits(quantized, calls, nudge=True)
            for index, (ids, f, e, p, n) in enumerate(zip(calls, reference, same, ours, nudged)):
                largest = lambda a, b: round(float((a - b).abs().max()), 3)  # noqa: E731
                print(json.dumps({
                    "program": path, "quantize": quantize, "sequence": name, "call": index, "tokens": len(ids),
                    "float32_scale": round(float(f.abs().max()), 2), "program_vs_eager": largest(p, e),
                    "program_vs_float32": largest(p, f), "eager_vs_float32": largest(e, f),
                    "nudged_vs_eager": largest(n, e),
                    "top_token": {"float32": int(f.argmax()), "eager": int(e.argmax()), "program": int(p.argmax())},
                }))
    return 0


if __name__ == "__main__":
    app.run(main)
