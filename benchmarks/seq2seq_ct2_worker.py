"""seq2seq_bench's CTranslate2 engine: convert() (in the benchmark's process) and the
worker (its own process, through peak_rss.py).

    seq2seq_ct2_worker.py <ct2_dir> <whisper|t5> <compute_type> <threads> <new_tokens> <prompt ids> <source> <beams>

<source>: a file of float32 [mel_bins, frames] features (Whisper) or the source's token
ids separated by spaces (T5). beam_size <beams> (1: greedy), CTranslate2's other
decoding settings its defaults, after a short untimed warm-up. Prints the new token ids
(the best hypothesis') on stdout and one JSON line on stderr.

- Whisper (ctranslate2.models.Whisper): encode_ms is Whisper.encode(); the decode is
  generate() on the encoded features with the prompt (max_length = 2 N: it decodes
  max_length / 2 tokens after the prompt), EOS suppressed so that it generates all N.
- T5 (ctranslate2.Translator): the translator has no encoder-only call, so encode_ms is
  null; two translations of the source, one forced to 1 token and one to N
  (min_decoding_length = max_decoding_length), give decode tokens/s =
  (N - 1) / (time(N) - time(1)), the encoder and fixed costs cancelling;
  encode_and_first_step_ms is time(1).

The model folders have no tokenizer (random weights), and CTranslate2's converter reads
the vocabulary from one: convert() gives it seq2seq_common.ct2_vocabulary's names.
"""

from __future__ import annotations

import json
import sys
import time

from pteforge.support.quiet import quiet_dependencies


class _Vocabulary:
    """The part of a transformers tokenizer CTranslate2's T5 and Whisper loaders read."""

    def __init__(self, tokens, pad, eos, unk, bos, additional):
        self.tokens = list(tokens)
        self._ids = {token: i for i, token in enumerate(self.tokens)}
        self.pad_token, self.eos_token, self.unk_token, self.bos_token = pad, eos, unk, bos
        self.additional_special_tokens = list(additional)
        self.special_tokens_map = {"additional_special_tokens": self.additional_special_tokens}

    def get_vocab(self) -> dict:
        return dict(self._ids)

    def convert_ids_to_tokens(self, index):
        return [self.tokens[i] for i in index] if isinstance(index, (list, tuple)) else self.tokens[index]

    def convert_tokens_to_ids(self, token):
        return [self._ids[t] for t in token] if isinstance(token, (list, tuple)) else self._ids[token]


def convert(folder: str, model: str, vocab_size: int, out_dir: str, quantization: str) -> str:
    """Converts the Hugging Face folder to a CTranslate2 model in `out_dir`."""
    import ctranslate2

    from benchmarks import seq2seq_common

    vocabulary = _Vocabulary(**seq2seq_common.ct2_vocabulary(model, vocab_size))

    class Converter(ctranslate2.converters.TransformersConverter):
        def load_tokenizer(self, tokenizer_class, model_name_or_path, **kwargs):
            return vocabulary

    return Converter(folder).convert(out_dir, quantization=quantization, force=True)


def _whisper(model_dir, compute_type, threads, new_tokens, prompt, features_path, beams):
    import ctranslate2
    import numpy as np

    from benchmarks import seq2seq_common

    model = ctranslate2.models.Whisper(model_dir, device="cpu", compute_type=compute_type, intra_threads=threads,
                                       inter_threads=1)
    features = np.fromfile(features_path, dtype=np.float32).reshape(1, model.n_mels, -1)
    storage = ctranslate2.StorageView.from_array(features)
    options = dict(beam_size=beams, suppress_blank=False, suppress_tokens=[seq2seq_common.WHISPER_EOS])

    def run(count):
        start = time.perf_counter()
        encoded = model.encode(storage)
        middle = time.perf_counter()
        # CTranslate2's Whisper decodes max_length / 2 tokens after the prompt (its
        # whisper.cc: decoding_options.max_length = options.max_length / 2, as OpenAI's
        # sample_len = n_text_ctx // 2).
        result = model.generate(encoded, [list(prompt)], max_length=2 * count, **options)
        end = time.perf_counter()
        tokens = result[0].sequences_ids[0]
        if len(tokens) != count:
            raise RuntimeError(f"CTranslate2's Whisper generated {len(tokens)} tokens, not {count}")
        return tokens, (middle - start) * 1e3, (end - middle) * 1e3

    run(4)  # warm-up
    tokens, encode_ms, decode_ms = run(new_tokens)
    return tokens, {"encode_ms": encode_ms, "decode_ms": decode_ms,
                    "decode_tokens_per_s": len(tokens) / (decode_ms / 1e3)}


def _t5(model_dir, compute_type, threads, new_tokens, prompt, source_ids, beams):
    import ctranslate2

    from benchmarks import seq2seq_common

    translator = ctranslate2.Translator(model_dir, device="cpu", compute_type=compute_type, intra_threads=threads,
                                        inter_threads=1)
    names = _vocabulary(model_dir)
    ids = {name: i for i, name in enumerate(names)}
    source = [names[i] for i in source_ids]
    if list(prompt) != [seq2seq_common.T5_PAD]:
        raise ValueError(f"T5's prompt is its decoder start token, not {prompt}")

    def run(count):
        start = time.perf_counter()
        result = translator.translate_batch([source], beam_size=beams, min_decoding_length=count,
                                            max_decoding_length=count)
        return [ids[t] for t in result[0].hypotheses[0]], (time.perf_counter() - start) * 1e3

    run(2)  # warm-up
    _, one_ms = run(1)
    tokens, all_ms = run(new_tokens)
    return tokens, {"encode_ms": None, "encode_and_first_step_ms": one_ms, "decode_ms": all_ms - one_ms,
                    "decode_tokens_per_s": seq2seq_common.rate_between(1, one_ms, len(tokens), all_ms)}


def _vocabulary(model_dir: str) -> list[str]:
    """The converted model's token names, by id."""
    import os

    for name in ("shared_vocabulary.json", "shared_vocabulary.txt"):
        path = os.path.join(model_dir, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f) if name.endswith(".json") else [line.rstrip("\n") for line in f]
    raise FileNotFoundError(f"no shared vocabulary in {model_dir}")


def main(argv: list[str]) -> int:
    model_dir, kind, compute_type = argv[1], argv[2], argv[3]
    threads, new_tokens, beams = int(argv[4]), int(argv[5]), int(argv[8])
    prompt = [int(t) for t in argv[6].split()]
    quiet_dependencies()
    if kind == "whisper":
        tokens, stats = _whisper(model_dir, compute_type, threads, new_tokens, prompt, argv[7], beams)
    else:
        tokens, stats = _t5(model_dir, compute_type, threads, new_tokens, prompt, [int(t) for t in argv[7].split()],
                            beams)
    print(" ".join(map(str, tokens)))
    print(json.dumps({"new_tokens": len(tokens), **stats}), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
