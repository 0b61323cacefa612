"""The tokenizer of a CTranslate2 Whisper directory, as transformers' own Whisper
tokenizer has it.

faster-whisper's models ship the tokenizer.json of the transformers checkpoint they were
converted from, often an older one without the 1501 timestamp tokens `<|0.00|>` ...
`<|30.00|>` (CTranslate2's WhisperLoader adds them to its vocabulary file, not to
tokenizer.json). They are added here as transformers' converter adds them
(convert_openai_to_hf.py: `add_tokens(timestamps, special_tokens=False)`), and the
result is checked against the model's vocabulary (vocabulary.txt or vocabulary.json),
token for token.
"""

from __future__ import annotations

import json
import os

TIME_PRECISION = 0.02
# The tokens Whisper's decoding needs by name.
SPECIAL = ("<|endoftext|>", "<|startoftranscript|>", "<|startofprev|>", "<|notimestamps|>")
_OPTIONAL_SPECIAL = ("<|transcribe|>", "<|translate|>")


class TokenizerError(ValueError):
    """The directory's tokenizer and vocabulary do not make a Whisper tokenizer."""


def timestamp_token(index: int) -> str:
    return "<|%.2f|>" % (index * TIME_PRECISION)


def read_vocabulary(directory: str) -> list[str]:
    """The model's tokens by id: vocabulary.json (CTranslate2 4) or vocabulary.txt (one a line)."""
    as_json, as_text = os.path.join(directory, "vocabulary.json"), os.path.join(directory, "vocabulary.txt")
    if os.path.isfile(as_json):
        with open(as_json, encoding="utf-8") as file:
            tokens = json.load(file)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise TokenizerError(f"{as_json} is not a list of tokens")
        return tokens
    if os.path.isfile(as_text):
        with open(as_text, encoding="utf-8", newline="") as file:
            text = file.read()
        return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    raise TokenizerError(f"{directory} has neither vocabulary.json nor vocabulary.txt (CTranslate2 writes one)")


def load_tokenizer(directory: str, vocab_size: int):
    """tokenizer.json with the timestamp tokens added (a tokenizers.Tokenizer), checked
    to give every id of the model's vocabulary its token."""
    from tokenizers import AddedToken, Tokenizer

    path = os.path.join(directory, "tokenizer.json")
    if not os.path.isfile(path):
        raise TokenizerError(f"{directory} has no tokenizer.json (faster-whisper's models ship the tokenizer.json "
                             "of the transformers checkpoint they come from: copy it there)")
    try:
        tokenizer = Tokenizer.from_file(path)
    except Exception as error:  # tokenizers raises a bare Exception on a malformed file
        raise TokenizerError(f"{path} is not a tokenizer.json tokenizers can read: {error}") from None
    vocabulary = read_vocabulary(directory)
    if len(vocabulary) != vocab_size:
        raise TokenizerError(f"{directory}: the vocabulary has {len(vocabulary)} tokens, the model's embeddings "
                             f"{vocab_size}")
    first = tokenizer.get_vocab_size(with_added_tokens=True)
    missing = vocabulary[first:]
    expected = [timestamp_token(i) for i in range(len(missing))]
    if missing != expected:
        wrong = next(i for i, (got, want) in enumerate(zip(missing, expected)) if got != want)
        raise TokenizerError(f"{directory}: the vocabulary's token {first + wrong} is {missing[wrong]!r}; past "
                             f"tokenizer.json's {first} tokens only the timestamps {expected[0]} ... are expected")
    tokenizer.add_tokens([AddedToken(token, special=False, normalized=True) for token in missing])
    for index, token in enumerate(vocabulary):
        if tokenizer.id_to_token(index) != token:
            raise TokenizerError(f"{directory}: id {index} is {token!r} in the vocabulary but "
                                 f"{tokenizer.id_to_token(index)!r} in tokenizer.json")
    return tokenizer


def special_ids(tokenizer, vocab_size: int) -> dict[str, int]:
    """The ids of SPECIAL (and of the task tokens, when the tokenizer has them)."""
    ids = {}
    for token in SPECIAL + _OPTIONAL_SPECIAL:
        index = tokenizer.token_to_id(token)
        if index is None and token in SPECIAL:
            raise TokenizerError(f"the tokenizer has no {token} token (not a Whisper tokenizer)")
        if index is not None:
            ids[token] = index
    timestamps = vocab_size - ids["<|notimestamps|>"] - 1
    if tokenizer.token_to_id(timestamp_token(0)) != ids["<|notimestamps|>"] + 1 or timestamps < 1:
        raise TokenizerError("the timestamp tokens do not follow <|notimestamps|> (Whisper's decoding counts "
                             "timestamps from the id after it)")
    return ids


def tokenizer_config(tokenizer) -> dict:
    """tokenizer_config.json for AutoTokenizer: transformers' Whisper tokenizer, whose
    begin, end, unknown and padding tokens are all <|endoftext|>, and whose additional
    special tokens are tokenizer.json's special tokens in id order, <|notimestamps|> last
    (WhisperTokenizer counts timestamps from the id after the last special token)."""
    end = "<|endoftext|>"
    specials = sorted((index, token.content) for index, token in tokenizer.get_added_tokens_decoder().items()
                      if token.special)
    return {
        "tokenizer_class": "WhisperTokenizer",
        "bos_token": end,
        "eos_token": end,
        "unk_token": end,
        "pad_token": end,
        "additional_special_tokens": [token for _, token in specials],
        "add_prefix_space": False,
        "errors": "replace",
        "model_max_length": 1024,
    }
