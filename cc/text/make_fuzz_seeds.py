"""Writes the seed corpus of tokenizer_fuzzer: the golden tokenizers (testdata/) cut to
a small vocabulary, so that each run is quick while every pipeline part of them is
there, alone and with texts after a NUL (the fuzzer's input layout); and the inputs of
past findings as they are.

Usage: make_fuzz_seeds.py <output-dir> <name.tokenizer.json>... [--regressions <finding>...]
"""

import json
import os
import sys

import seed_corpus_tool

# Vocabulary entries kept (the first ids: bytes and the earliest merges), and the merges
# whose parts and result all survive.
_VOCAB_SIZE = 400

# Texts for the seeds (the fuzzer encodes its own default text when there is none).
_TEXTS = [
    "Hello world, it's 2024!",
    "I'LL \u0130stanbul \u00e9\u0301 caf\u00e9 \u017f\u212a",
    " \t\r\n   \u3000x\u00a0y  ",
    "\u4e2d\u6587 \ud55c\uad6d\uc5b4 \u0645\u0631\u062d\u0628\u0627 \U0001f468\u200d\U0001f469\U0001f3fd \U0001f1fa\U0001f1f8",
    "<|endoftext|><s>a</s><mask> <|begin_of_text|><|im_start|>",
    "0123456789" * 8,
]
_INVALID_UTF8 = b"ab\xff\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80"


def _merge_parts(merge):
    return merge.split(" ") if isinstance(merge, str) else list(merge)


def small(tokenizer: dict) -> dict:
    model = tokenizer["model"]
    vocab = {token: id for token, id in model["vocab"].items() if id < _VOCAB_SIZE}
    merges = []
    for merge in model["merges"]:
        parts = _merge_parts(merge)
        if len(parts) == 2 and all(p in vocab for p in parts) and "".join(parts) in vocab:
            merges.append(merge)
    unk = model.get("unk_token")
    if unk and unk not in vocab:
        vocab[unk] = model["vocab"][unk]
    tokenizer["model"] = dict(model, vocab=vocab, merges=merges)
    return tokenizer


def seeds_of(path: str):
    """The seeds of one golden tokenizer.json: cut small, alone and with each text."""
    with open(path, "rb") as f:
        tokenizer = small(json.load(f))
    stem = os.path.basename(path).removesuffix(".tokenizer.json")
    # Alone with \u escapes (surrogate pairs included), then in UTF-8 with each text.
    yield f"{stem}_0", json.dumps(tokenizer).encode()
    raw = json.dumps(tokenizer, ensure_ascii=False).encode()
    texts = [text.encode() for text in _TEXTS] + [_INVALID_UTF8]
    for index, text in enumerate(texts, start=1):
        yield f"{stem}_{index}", raw + b"\0" + text


if __name__ == "__main__":
    sys.exit(seed_corpus_tool.main(sys.argv, seeds_of, __doc__))
