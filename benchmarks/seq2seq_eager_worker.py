"""seq2seq_bench's transformers engine, in its own process (through peak_rss.py):

    seq2seq_eager_worker.py <hf_folder> <float32|int8> <threads> <new_tokens> <prompt ids> <source> <beams>

<source>: a file of float32 [mel_bins, frames] features (Whisper) or the source's token
ids separated by spaces (text models). Eager PyTorch, torch.set_num_threads(threads):
the encoder once (encode_ms), then, greedy, the model's own forward with its cache
(EncoderDecoderCache; the cross-attention keys and values are projected on the first
call and kept), the whole prompt in the first call and one call per token after it,
taking the argmax without the end-of-sequence token; with beams, transformers'
generate() (GenerationMixin's, Whisper's own adds its long-form logic) on the encoder's
output, num_beams and min_new_tokens = max_new_tokens = new_tokens. Exactly new_tokens
tokens either way. int8: pteforge.lower.quantize.QUANTIZERS["int8"] on the model, what
export_seq2seq_lm(quantize="int8") applies. A short untimed warm-up runs first. Prints
the new token ids (the best beam's) on stdout and one JSON line on stderr.
"""

from __future__ import annotations

import json
import sys
import time

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()

import torch  # noqa: E402


def main(argv: list[str]) -> int:
    folder, precision, threads, new_tokens = argv[1], argv[2], int(argv[3]), int(argv[4])
    prompt = [int(t) for t in argv[5].split()]
    beams = int(argv[7])
    import numpy as np
    from transformers.generation.utils import GenerationMixin

    from pteforge.lower import quantize
    from pteforge.seq2seq.export import load_hf_seq2seq
    from pteforge.support.quiet import held_back

    torch.set_num_threads(threads)
    model = load_hf_seq2seq(folder)
    if precision != "float32":
        with held_back():
            quantize.QUANTIZERS[precision](model)
    speech = model.config.model_type == "whisper"
    if speech:
        features = np.fromfile(argv[6], dtype=np.float32).reshape(1, model.config.num_mel_bins, -1)
        encoder_inputs, step_inputs = {"input_features": torch.from_numpy(features)}, {}
    else:
        ids = torch.tensor([[int(t) for t in argv[6].split()]])
        mask = torch.ones_like(ids)
        encoder_inputs, step_inputs = {"input_ids": ids, "attention_mask": mask}, {"attention_mask": mask}
    encoder = model.get_encoder()
    eos = model.config.eos_token_id

    def argmax(logits: torch.Tensor) -> int:
        logits = logits[0, -1].clone()
        logits[eos] = -torch.inf
        return int(logits.argmax())

    def greedy(encoded, count: int) -> list[int]:
        out = model(encoder_outputs=encoded, decoder_input_ids=torch.tensor([prompt]), use_cache=True, **step_inputs)
        tokens = [argmax(out.logits)]
        while len(tokens) < count:
            out = model(encoder_outputs=encoded, decoder_input_ids=torch.tensor([[tokens[-1]]]),
                        past_key_values=out.past_key_values, use_cache=True, **step_inputs)
            tokens.append(argmax(out.logits))
        return tokens

    def beam(encoded, count: int) -> list[int]:
        sequences = GenerationMixin.generate(model, encoder_outputs=encoded, decoder_input_ids=torch.tensor([prompt]),
                                             num_beams=beams, do_sample=False, min_new_tokens=count,
                                             max_new_tokens=count, **step_inputs)
        return sequences[0, len(prompt):].tolist()

    def generate(count: int) -> tuple[list[int], float, float]:
        with torch.inference_mode():
            start = time.perf_counter()
            encoded = encoder(**encoder_inputs)
            middle = time.perf_counter()
            tokens = (greedy if beams == 1 else beam)(encoded, count)
            end = time.perf_counter()
        return tokens, (middle - start) * 1e3, (end - middle) * 1e3

    with held_back():
        generate(2)  # warm-up
        tokens, encode_ms, decode_ms = generate(new_tokens)
    print(" ".join(map(str, tokens)))
    print(json.dumps({"new_tokens": len(tokens), "encode_ms": encode_ms, "decode_ms": decode_ms,
                      "decode_tokens_per_s": len(tokens) / (decode_ms / 1e3)}), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
