"""What a causal-LM .pte carries besides prefill and decode_step: constant methods that
the C++ generator (cc/llm/causal_lm.h) and pteforge.llm.load_causal_lm read, so that a
.pte generates text with no other file and no flags.

    family            "causal_lm": what kind of program this is
    model_type        the transformers model type ("llama", "qwen2", ...)
    max_seq_len       positions in the cache: prompt + generated tokens
    vocab_size        the width of the logits
    bos_token_id, pad_token_id      -1 when the model has none
    eos_token_ids     int64[k]: generation stops at any of them (k may be 0)
    do_sample, temperature, top_k, top_p, repetition_penalty, max_new_tokens
                      the model's generation defaults (generation_config.json; unset
                      values as transformers' generate() fills them; max_new_tokens 0:
                      until EOS or max_seq_len)
    tokenizer_json    uint8[n]: the tokenizer.json bytes (only with tokenizer_dir)
    chat_template     uint8[n]: the chat template as JSON (pteforge.llm.chat_template;
                      only with a tokenizer_dir whose tokenizer has a chat template)
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import torch
from torch import nn

from pteforge.support.errors import ExportError

FAMILY = "causal_lm"
TOKENIZER_JSON = "tokenizer_json"
CHAT_TEMPLATE = "chat_template"

_log = logging.getLogger("pteforge")

# Sampling settings generate() applies, with transformers' defaults for unset ones.
_SAMPLING = {"do_sample": False, "temperature": 1.0, "top_k": 50, "top_p": 1.0, "repetition_penalty": 1.0}

# Settings generate() does not apply, and their no-op values (a model that sets another
# value is exported with a warning naming them).
_IGNORED = {"num_beams": 1, "no_repeat_ngram_size": 0, "min_length": 0, "min_new_tokens": None, "min_p": None,
            "typical_p": 1.0, "bad_words_ids": None, "suppress_tokens": None, "begin_suppress_tokens": None,
            "forced_bos_token_id": None, "forced_eos_token_id": None, "epsilon_cutoff": 0.0, "eta_cutoff": 0.0}


def token_ids(value: Any) -> list[int]:
    """A config's token id setting (None, an id or a list of ids) as a list."""
    if value is None:
        return []
    return [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]


def model_constants(model: nn.Module, max_seq_len: int) -> dict[str, Any]:
    """The constants that come from the model and its generation config."""
    config = model.config.get_text_config()
    generation = model.generation_config
    vocab_size = int(model.get_output_embeddings().weight.shape[0])
    eos = token_ids(generation.eos_token_id) or token_ids(config.eos_token_id)

    def single(name: str) -> int:
        ids = token_ids(getattr(generation, name, None)) or token_ids(getattr(config, name, None))
        return ids[0] if ids else -1

    constants: dict[str, Any] = {
        "family": FAMILY,
        "model_type": str(config.model_type),
        "max_seq_len": int(max_seq_len),
        "vocab_size": vocab_size,
        "bos_token_id": single("bos_token_id"),
        "pad_token_id": single("pad_token_id"),
        "eos_token_ids": torch.tensor(eos, dtype=torch.int64),
    }
    for name, default in _SAMPLING.items():
        value = getattr(generation, name, None)
        constants[name] = type(default)(default if value is None else value)
    constants["max_new_tokens"] = int(generation.max_new_tokens or 0)
    ignored = [f"{name}={getattr(generation, name)!r}" for name, neutral in _IGNORED.items()
               if getattr(generation, name, None) not in (None, neutral)]
    if ignored:
        _log.warning("the model's generation config sets %s, which pteforge's generate does not apply",
                     ", ".join(ignored))
    for token in eos + [constants["bos_token_id"], constants["pad_token_id"]]:
        if token >= vocab_size:
            raise ExportError(f"the model's special token id {token} is outside its vocabulary of {vocab_size}")
    return constants


def tokenizer_constants(tokenizer_dir: str | os.PathLike, vocab_size: int) -> dict[str, Any]:
    """The tokenizer.json of `tokenizer_dir`, checked: it loads with Hugging Face
    `tokenizers` and none of its ids is outside the model's vocabulary."""
    from tokenizers import Tokenizer

    path = os.path.join(os.fspath(tokenizer_dir), "tokenizer.json")
    if not os.path.isfile(path):
        raise ExportError(f"tokenizer_dir={os.fspath(tokenizer_dir)!r} has no tokenizer.json (the fast-tokenizer "
                          "file of a Hugging Face model; save one with tokenizer.save_pretrained(dir))")
    with open(path, "rb") as f:
        data = f.read()
    try:
        tokenizer = Tokenizer.from_str(data.decode("utf-8"))
    except Exception as error:  # noqa: BLE001 (tokenizers raises plain Exception)
        raise ExportError(f"{path} does not load with Hugging Face tokenizers: {error}") from error
    largest = max(tokenizer.get_vocab(with_added_tokens=True).values(), default=-1)
    if largest >= vocab_size:
        raise ExportError(f"{path} has token ids up to {largest}, but the model's vocabulary has {vocab_size} "
                          "rows: this tokenizer is not the model's")
    return {TOKENIZER_JSON: data}


def eos_from_tokenizer_config(tokenizer_dir: str | os.PathLike, tokenizer_json: bytes) -> list[int]:
    """The id of tokenizer_config.json's eos_token, for models whose configs name none."""
    path = os.path.join(os.fspath(tokenizer_dir), "tokenizer_config.json")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        token = json.load(f).get("eos_token")
    if isinstance(token, dict):
        token = token.get("content")
    if not isinstance(token, str):
        return []
    from tokenizers import Tokenizer

    found = Tokenizer.from_str(tokenizer_json.decode("utf-8")).token_to_id(token)
    return [] if found is None else [found]


def chat_constants(tokenizer_dir: str | os.PathLike) -> dict[str, Any]:
    """The chat template of the tokenizer in `tokenizer_dir` as ChatFormat's JSON, checked
    against transformers' apply_chat_template; nothing when it has no template."""
    from transformers import AutoTokenizer

    from pteforge.llm.chat_template import derive_chat_format
    from pteforge.support.quiet import held_back

    directory = os.fspath(tokenizer_dir)
    if not _has_chat_template(directory):
        return {}
    with held_back():  # transformers' notes on loading
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    return {CHAT_TEMPLATE: derive_chat_format(tokenizer, directory).to_json()}


def _has_chat_template(directory: str) -> bool:
    """Whether the folder names a chat template where transformers looks for one."""
    if os.path.isfile(os.path.join(directory, "chat_template.jinja")):
        return True
    path = os.path.join(directory, "tokenizer_config.json")
    if not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8") as f:
        return bool(json.load(f).get("chat_template"))
