"""What a seq2seq .pte carries besides encode / decode_step / reorder_cache: constant
methods that pteforge.seq2seq.generation (and the C++ generator) read, so that a .pte
searches with the model's own generation settings and no flags.

    family                  "seq2seq"
    model_type              transformers' model type ("t5", "bart", "whisper", ...)
    encoder_input           "input_ids" (text) or "input_features" (Whisper's log-mel)
    vocab_size              the width of decode_step's logits
    max_rows, max_sources, max_source_length, max_target_length     the cache's limits
    decoder_start_token_id, pad_token_id
    eos_token_ids           int64[k]: a row ends at any of them
    forced_bos_token_id, forced_eos_token_id           -1 when not set
    bad_words_ids, suppress_tokens, begin_suppress_tokens   int64[k] (single tokens; ids
                            outside the vocabulary are dropped, with a note)
    renormalize_logits, num_beams, length_penalty, early_stopping, min_length, max_length
                            generate()'s settings from the model's generation config
                            (transformers' defaults where unset; max_length at most
                            max_target_length)
    alignment_heads         int64[k, 2] (Whisper): the [layer, head] pairs of align's scores
    tokenizer_json          uint8[n]: the tokenizer.json bytes (only with tokenizer_dir)
"""

from __future__ import annotations

import logging
from typing import Any

import torch
from torch import nn

from pteforge.llm.program_constants import TOKENIZER_JSON, token_ids, tokenizer_constants  # noqa: F401 (re-exported)
from pteforge.seq2seq import families
from pteforge.support.errors import ExportError

FAMILY = "seq2seq"

_log = logging.getLogger("pteforge")

# Settings the search does not apply, and their no-op values: a model that sets another
# value is exported with a warning naming them.
_IGNORED = {"do_sample": False, "no_repeat_ngram_size": 0, "repetition_penalty": 1.0, "num_return_sequences": 1,
            "encoder_no_repeat_ngram_size": 0, "diversity_penalty": 0.0, "min_new_tokens": None}


def _single(value: Any) -> int:
    ids = token_ids(value)
    return ids[0] if ids else -1


def _tokens(name: str, value: Any, vocab_size: int, dropped: list[str]) -> torch.Tensor:
    """A list of single-token ids (bad_words_ids: [[id], ...]). Ids outside the
    vocabulary are left out, and said in `dropped`: no step can produce such a token,
    so suppressing it changes nothing (transformers' suppressing processors ignore it;
    its bad-words processor refuses it at generation time)."""
    if value is None:
        return torch.zeros(0, dtype=torch.int64)
    flat, outside = [], []
    for item in value:
        if isinstance(item, (list, tuple)):
            if len(item) != 1:
                raise ExportError(f"the generation config's {name} holds the sequence {list(item)}; only "
                                  "single-token entries are supported")
            item = item[0]
        (flat if 0 <= int(item) < vocab_size else outside).append(int(item))
    if outside:
        note = (f"generation config {name}: {len(outside)} id(s) outside the vocabulary of {vocab_size} dropped "
                f"({', '.join(map(str, outside[:8]))}{', ...' if len(outside) > 8 else ''})")
        _log.warning("%s", note)
        dropped.append(note)
    return torch.tensor(flat, dtype=torch.int64)


def eos_token_ids(model: nn.Module) -> list[int]:
    """The ids that end a row: the generation config's, else the model config's."""
    return token_ids(model.generation_config.eos_token_id) or token_ids(model.config.eos_token_id)


def model_constants(model: nn.Module, limits, notes: list[str] | None = None) -> dict[str, Any]:
    """The constants that come from the model, its generation config and the limits.
    What it drops from the generation config is added to `notes` (for the report)."""
    config = model.config
    generation = model.generation_config
    defaults = type(generation)._get_default_generation_params()

    def setting(name: str):
        value = getattr(generation, name, None)
        return defaults.get(name) if value is None else value

    vocab_size = int(model.get_output_embeddings().weight.shape[0])
    eos = eos_token_ids(model)
    start = _single(generation.decoder_start_token_id)
    if start < 0:
        start = _single(config.decoder_start_token_id)
    if start < 0:
        raise ExportError(f"{type(model).__name__} names no decoder_start_token_id (config or generation config)")
    early_stopping = setting("early_stopping")
    if early_stopping not in (True, False):
        raise ExportError(f"early_stopping={early_stopping!r} is not supported (only true or false)")
    pad = _single(generation.pad_token_id)
    dropped = notes if notes is not None else []
    constants: dict[str, Any] = {
        "family": FAMILY,
        "model_type": families.model_type(model),
        "encoder_input": "input_features" if families.is_speech(model) else "input_ids",
        "vocab_size": vocab_size,
        "max_rows": limits.max_rows,
        "max_sources": limits.max_sources,
        "max_source_length": limits.max_source_len,
        "max_target_length": limits.max_target_len,
        "decoder_start_token_id": start,
        "pad_token_id": pad if pad >= 0 else _single(config.pad_token_id),
        "eos_token_ids": torch.tensor(eos, dtype=torch.int64),
        "forced_bos_token_id": _single(setting("forced_bos_token_id")),
        "forced_eos_token_id": _single(setting("forced_eos_token_id")),
        "bad_words_ids": _tokens("bad_words_ids", setting("bad_words_ids"), vocab_size, dropped),
        "suppress_tokens": _tokens("suppress_tokens", setting("suppress_tokens"), vocab_size, dropped),
        "begin_suppress_tokens": _tokens("begin_suppress_tokens", setting("begin_suppress_tokens"), vocab_size,
                                         dropped),
        "renormalize_logits": bool(setting("renormalize_logits")),
        "num_beams": int(setting("num_beams")),
        "length_penalty": float(setting("length_penalty")),
        "early_stopping": bool(early_stopping),
        "min_length": int(setting("min_length") or 0),
        "max_length": min(int(setting("max_length")), limits.max_target_len),
    }
    ignored = [f"{name}={getattr(generation, name)!r}" for name, neutral in _IGNORED.items()
               if getattr(generation, name, None) not in (None, neutral)]
    if ignored:
        _log.warning("the model's generation config sets %s, which pteforge's search does not apply",
                     ", ".join(ignored))
    special = eos + [start, constants["pad_token_id"], constants["forced_bos_token_id"],
                     constants["forced_eos_token_id"]]
    for token in special:
        if token >= vocab_size:
            raise ExportError(f"the model's special token id {token} is outside its vocabulary of {vocab_size}")
    return constants
