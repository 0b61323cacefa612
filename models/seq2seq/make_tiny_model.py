"""Writes a tiny Hugging Face encoder-decoder folder with seeded random weights, for tests
and the docs: a build action (bazel/tiny_models.bzl, tiny_seq2seq). Nothing is
downloaded.

    make_tiny_model.py FAMILY OUT_DIR CORPUS_FILE...

The folder is what `save_pretrained` writes for a real model (config.json,
model.safetensors, generation_config.json) plus a tokenizer.json trained here with the
`tokenizers` package in the style of the family's tokenizer, whose special tokens take
the family's usual ids; the model's vocabulary is exactly the tokenizer's. The model is
pteforge.seq2seq.testing_models.tiny_model over that vocabulary.

Families (tokenizer style; special tokens in id order):
  t5       SentencePiece-style BPE (Metaspace); <pad> </s> <unk>; "$A </s>"
  bart     RoBERTa's ByteLevel BPE; <s> <pad> </s> <unk>; "<s> $A </s>"; forced BOS <s>
  marian   SentencePiece-style BPE; </s> <unk> <pad>; "$A </s>"; <pad> starts the decoder
  m2m_100  SentencePiece-style BPE; <s> <pad> </s> <unk> __en__ __fr__; "__en__ $A </s>";
           the target language __fr__ is the forced BOS token
  whisper  GPT-2's ByteLevel BPE; <|endoftext|> <|startoftranscript|> <|en|> <|transcribe|>
           <|notimestamps|>; the decoder prompt starts with <|startoftranscript|>
"""

from __future__ import annotations

import os
import sys

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()  # before torch: a build action prints only its own lines

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors  # noqa: E402

from cc.text.testdata import make_golden  # noqa: E402
from pteforge.seq2seq.testing_models import FAMILIES, tiny_model  # noqa: E402

VOCAB_SIZE = 400
# The seed and, where testing_models' default does not do it, the weights' standard
# deviation with which the greedy tokens of tests/seq2seq's texts differ from text to
# text (with some, a random model repeats one token whatever the source).
SEED = 1
INIT_STD = {"bart": 0.1}

SPECIAL_TOKENS = {
    "t5": ["<pad>", "</s>", "<unk>"],
    "bart": ["<s>", "<pad>", "</s>", "<unk>"],
    "marian": ["</s>", "<unk>", "<pad>"],
    "m2m_100": ["<s>", "<pad>", "</s>", "<unk>", "__en__", "__fr__"],
    "whisper": ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"],
}


def _metaspace(corpus: list[str], specials: list[str], template: str) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    make_golden.train(tokenizer, corpus, VOCAB_SIZE, specials, limit_alphabet=100)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=template, special_tokens=[(token, tokenizer.token_to_id(token)) for token in specials
                                         if token in template.split()])
    return tokenizer


def _byte_level(corpus: list[str], specials: list[str], prefix_space: bool) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    tokenizer.decoder = decoders.ByteLevel()
    make_golden.train(tokenizer, corpus, VOCAB_SIZE, specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    return tokenizer


def _tokenizer(family: str, corpus: list[str]) -> Tokenizer:
    specials = SPECIAL_TOKENS[family]
    if family == "t5":
        return _metaspace(corpus, specials, "$A </s>")
    if family == "marian":
        return _metaspace(corpus, specials, "$A </s>")
    if family == "m2m_100":
        return _metaspace(corpus, specials, "__en__ $A </s>")
    if family == "bart":
        tokenizer = _byte_level(corpus, specials, prefix_space=True)
        tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
        return tokenizer
    return _byte_level(corpus, specials, prefix_space=False)


def _special_ids(family: str, tokenizer: Tokenizer) -> dict:
    def token(name: str) -> int:
        return tokenizer.token_to_id(name)

    if family == "t5":
        return dict(pad=token("<pad>"), eos=token("</s>"), start=token("<pad>"))
    if family == "bart":
        return dict(bos=token("<s>"), pad=token("<pad>"), eos=token("</s>"), start=token("</s>"),
                    forced_bos=token("<s>"))
    if family == "marian":
        return dict(eos=token("</s>"), pad=token("<pad>"), start=token("<pad>"))
    if family == "m2m_100":
        return dict(bos=token("<s>"), pad=token("<pad>"), eos=token("</s>"), start=token("</s>"),
                    forced_bos=token("__fr__"))
    end = token("<|endoftext|>")
    return dict(eos=end, pad=end, bos=end, start=token("<|startoftranscript|>"), suppress=[],
                begin_suppress=[end])


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in FAMILIES:
        print(__doc__, file=sys.stderr)
        return 2
    family, out_dir, corpus_paths = argv[0], argv[1], argv[2:]
    tokenizer = _tokenizer(family, make_golden.read_corpus(corpus_paths))
    import transformers

    transformers.utils.logging.disable_progress_bar()  # quiet build actions
    model = tiny_model(family, tokenizer.get_vocab_size(), _special_ids(family, tokenizer), seed=SEED,
                       init_std=INIT_STD.get(family))
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save(os.path.join(out_dir, "tokenizer.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
