"""Writes a tiny Hugging Face causal LM folder with seeded random weights, for tests: a
build action (bazel/tiny_models.bzl, tiny_causal_lm). Nothing is downloaded.

    make_tiny_model.py FAMILY OUT_DIR CORPUS_FILE...

The folder is what `save_pretrained` writes for a real model: config.json,
model.safetensors, generation_config.json, tokenizer.json, tokenizer_config.json. The
tokenizer is trained here with the `tokenizers` package, in the style its family's
models use (cc/text/testdata/make_golden.py trains the same styles for the tokenizer's
golden test), and the model's vocabulary is exactly the tokenizer's, so that every id
the random model produces has a token. initializer_range is larger than the families'
0.02 so that random logits are far from flat: greedy decoding then produces varied
tokens instead of repeating one, and near-ties between the best two are rare.

Families (transformers class, tokenizer style, special tokens):
  llama  LlamaForCausalLM, SentencePiece-style BPE with byte fallback (Llama-2), <s> </s>
  qwen2  Qwen2ForCausalLM (tied embeddings), Qwen2 regex + ByteLevel, two EOS ids and a
         repetition_penalty and sampling defaults in its generation config (as Qwen2.5
         instruct models have)
  gpt2   GPT2LMHeadModel, GPT-2 ByteLevel, <|endoftext|>
  phi    PhiForCausalLM (partial rotary, parallel attention + MLP), GPT-2 ByteLevel as phi-2
"""

from __future__ import annotations

import json
import os
import sys

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()  # before torch: a build action prints only its own lines

import torch  # noqa: E402
import transformers  # noqa: E402

from cc.text.testdata import make_golden  # noqa: E402

HIDDEN = 64
LAYERS = 2
HEADS = 4
MAX_POSITIONS = 256
INIT_RANGE = 0.1


def _tokenizer(family: str, training: list[str]):
    if family == "llama":
        return make_golden.llama2(training, vocab_size=500), "<s>", ["</s>"]
    if family == "qwen2":
        return make_golden.qwen2(training, vocab_size=768), None, ["<|im_end|>", "<|endoftext|>"]
    return make_golden.gpt2(training, vocab_size=768), "<|endoftext|>", ["<|endoftext|>"]


def _model(family: str, vocab: int, bos: int | None, eos: list[int]):
    common = dict(vocab_size=vocab, bos_token_id=bos, eos_token_id=eos[0], initializer_range=INIT_RANGE)
    attention = dict(hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=LAYERS,
                     num_attention_heads=HEADS, max_position_embeddings=MAX_POSITIONS)
    if family == "llama":
        config = transformers.LlamaConfig(num_key_value_heads=HEADS // 2, **attention, **common)
        return transformers.LlamaForCausalLM(config)
    if family == "qwen2":
        config = transformers.Qwen2Config(num_key_value_heads=HEADS // 2, tie_word_embeddings=True,
                                          **attention, **common)
        return transformers.Qwen2ForCausalLM(config)
    if family == "phi":
        config = transformers.PhiConfig(partial_rotary_factor=0.5, **attention, **common)
        return transformers.PhiForCausalLM(config)
    config = transformers.GPT2Config(n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_positions=MAX_POSITIONS,
                                     **common)
    return transformers.GPT2LMHeadModel(config)


def _generation_config(family: str, bos: int | None, eos: list[int]) -> transformers.GenerationConfig:
    settings = dict(bos_token_id=bos, eos_token_id=eos if len(eos) > 1 else eos[0])
    if family == "qwen2":
        settings.update(do_sample=True, temperature=0.7, top_p=0.8, top_k=20, repetition_penalty=1.05)
    return transformers.GenerationConfig(**settings)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("llama", "qwen2", "gpt2", "phi"):
        print(__doc__, file=sys.stderr)
        return 2
    family, out_dir, corpus_paths = argv[0], argv[1], argv[2:]
    training = make_golden.read_corpus(corpus_paths) + make_golden.MULTILINGUAL * 20 + make_golden.CODE * 10
    tokenizer, bos_token, eos_tokens = _tokenizer(family, training)
    bos = tokenizer.token_to_id(bos_token) if bos_token else None
    eos = [tokenizer.token_to_id(token) for token in eos_tokens]

    transformers.utils.logging.disable_progress_bar()  # quiet build actions
    torch.manual_seed(sum(map(ord, family)))
    model = _model(family, tokenizer.get_vocab_size(), bos, eos).eval()
    model.generation_config = _generation_config(family, bos, eos)
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save(os.path.join(out_dir, "tokenizer.json"))
    tokenizer_config = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": MAX_POSITIONS,
                        "eos_token": eos_tokens[0], **({"bos_token": bos_token} if bos_token else {})}
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_config, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
