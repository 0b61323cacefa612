"""Exporter factory for OPUS-MT en->fr: `python -m pteforge.export --model=models.opus.export:make_exporter`.

The .pte is everything the translator needs: the three entry points of
models.opus.marian.StatefulMarian sharing one cache, plus constant methods carrying the
SentencePiece models, the vocabulary, the special token ids and the generation
settings (models/translation_program.py).
"""

from __future__ import annotations

import logging

import torch
from torch.export import Dim

from models.opus import checkpoint as checkpoint_lib
from models.opus.marian import StatefulMarian
from models.translation_program import add_translation_constants, vocab_text
from pteforge import Call, ExportError, MultiMethodExporter, quantize
from pteforge.spec import DYNAMIC_INT8_TOLERANCE

_log = logging.getLogger("pteforge")

# What this exporter quantizes: int8 linear layers (pteforge.quantize.int8_linears).
QUANTIZATIONS = ("none", "int8")

UNTRAINED_WARNING = (
    "this model has UNTRAINED random weights (no OPUS-MT checkpoint was given): its output "
    "is not a translation. Give a checkpoint with --repo_env=PTEFORGE_OPUS_CHECKPOINT=<dir>."
)


def make_exporter(
    checkpoint: str = "",
    max_rows: str = "8",
    max_source: str = "128",
    max_target: str = "128",
    cross_attention: str = "cached",
    quantization: str = "none",
) -> MultiMethodExporter:
    """The configured exporter.

    Args (strings, as --model_args gives them):
      checkpoint: checkpoint directory (or a file in it); empty: see checkpoint.find().
      max_rows: most decoder rows at once (sentences x beams).
      max_source: longest source in tokens, </s> included.
      max_target: most decoder positions, the start token included.
      cross_attention: "cached" (keys/values computed once per sentence, the default)
        or "recomputed" (from the stored encoder output at every step; for benchmarks).
      quantization: "none" (float32) or "int8" (int8 weights per channel, dynamically
        quantized activations, for XNNPACK: see pteforge.quantize). Not bit-exact
        with Hugging Face any more.
    """
    if cross_attention not in ("cached", "recomputed"):
        raise ExportError(f"cross_attention={cross_attention!r}: expected 'cached' or 'recomputed'")
    if quantization not in QUANTIZATIONS:
        raise ExportError(f"quantization={quantization!r}: expected one of {', '.join(QUANTIZATIONS)}")
    directory = checkpoint_lib.find(checkpoint or None)
    if directory is None:
        raise ExportError(
            "no OPUS-MT checkpoint: give checkpoint=<dir>, set $PTEFORGE_OPUS_CHECKPOINT, or "
            "put Helsinki-NLP/opus-mt-en-fr in the Hugging Face cache"
        )
    try:
        ckpt = checkpoint_lib.load(directory)
    except checkpoint_lib.CheckpointError as error:
        raise ExportError(str(error)) from None
    if ckpt.random:
        _log.warning("WARNING: %s", UNTRAINED_WARNING)
    rows, sources, targets = int(max_rows), int(max_source), int(max_target)
    config = ckpt.model.config
    generation = _effective_generation(ckpt.generation)
    pad = config.pad_token_id
    bad_words = generation["bad_words_ids"] or []
    if bad_words not in ([], [[pad]]):
        raise ExportError(f"bad_words_ids={bad_words} is not supported (only [[pad_token_id]])")
    module = StatefulMarian(
        ckpt.model, rows, sources, targets,
        bad_token=pad if bad_words else None,
        renormalize=bool(generation["renormalize_logits"]),
        recompute_cross_attention=cross_attention == "recomputed",
    ).eval()
    if quantization == "int8":
        quantize.int8_linears(module)

    exporter = MultiMethodExporter(module, name=ckpt.name)
    exporter.shared_state("cache", *(["encoder_states"] if cross_attention == "recomputed" else []))
    batch = Dim("batch", min=1, max=rows)
    n = Dim("rows", min=1, max=rows)
    source = Dim("source", min=1, max=sources)
    target = Dim("target", min=1, max=targets)
    tokens = torch.tensor([[5, 6, 7, 8, 0], [9, 10, 0, pad, pad]])
    mask = (tokens != pad).to(torch.int64)
    exporter.method("encode", (tokens, mask, torch.tensor([0, 0, 1])),
                    dynamic_shapes=({0: batch, 1: source}, {0: batch, 1: source}, {0: n}))
    row_mask = mask.index_select(0, torch.tensor([0, 0, 1]))
    exporter.method("decode_step", (torch.full((3, 1), pad), row_mask, torch.ones(3, 2, dtype=torch.int64)),
                    dynamic_shapes=({0: n}, {0: n, 1: source}, {0: n, 1: target}))
    exporter.method("reorder_cache", (torch.tensor([1, 0, 2]),), dynamic_shapes=({0: n},))
    exporter.call_sequence(_conformance_calls(tokens, mask, pad))
    if quantization == "int8":
        exporter.conformance_tolerance(DYNAMIC_INT8_TOLERANCE)

    forced_eos = generation["forced_eos_token_id"] == config.eos_token_id
    values = {
        "family": "marian",
        "model_name": ckpt.name,
        "weights_are_random": ckpt.random,
        "source_spm": ckpt.source_spm,
        "target_spm": ckpt.target_spm,
        "vocab": vocab_text(_pieces(ckpt.vocab, config.vocab_size)),
        "decoder_start_token_id": config.decoder_start_token_id,
        "eos_token_id": config.eos_token_id,
        "pad_token_id": pad,
        "unk_token_id": ckpt.vocab.get("<unk>", 1),
        "num_beams": int(generation["num_beams"]),
        "max_length": min(int(generation["max_length"]), targets),
        "length_penalty": float(generation["length_penalty"]),
        "early_stopping": bool(generation["early_stopping"]),
        "forced_eos": forced_eos,
        "max_rows": rows,
        "max_source_length": sources,
        "max_target_length": targets,
    }
    add_translation_constants(exporter, values)
    return exporter


def _pieces(vocab: dict[str, int], size: int) -> list[str]:
    """The pieces in id order ("" for an id without a piece)."""
    pieces = [""] * size
    for piece, index in vocab.items():
        if 0 <= index < size:
            pieces[index] = piece
    return pieces


# Generation settings whose non-default values the translator does not implement.
_UNSUPPORTED = {"do_sample": False, "min_length": 0, "repetition_penalty": 1.0, "no_repeat_ngram_size": 0,
                "num_return_sequences": 1, "suppress_tokens": None, "begin_suppress_tokens": None}


def _effective_generation(generation) -> dict:
    """The settings generate() would use: the checkpoint's, else transformers' defaults."""
    defaults = type(generation)._get_default_generation_params()
    names = ["bad_words_ids", "renormalize_logits", "forced_eos_token_id", "num_beams", "max_length",
             "length_penalty", "early_stopping", *_UNSUPPORTED]
    values = {}
    for name in names:
        value = getattr(generation, name, None)
        values[name] = defaults.get(name) if value is None else value
    for name, default in _UNSUPPORTED.items():
        if values[name] not in (default, None) and values[name] != default:
            raise ExportError(f"the checkpoint's generation config sets {name}={values[name]!r}, which "
                              "opus_translate does not implement")
    if values["early_stopping"] not in (False, True):
        raise ExportError(f"early_stopping={values['early_stopping']!r} is not supported (only true or false)")
    return values


def _conformance_calls(tokens: torch.Tensor, mask: torch.Tensor, pad: int) -> list[Call]:
    """Two sentences with two beams each for three steps with a reorder, then a new sentence."""
    rows = torch.tensor([0, 0, 1, 1])
    row_mask = mask.index_select(0, rows)
    steps = [torch.full((4, 1), pad), torch.tensor([[11], [12], [13], [14]]), torch.tensor([[15], [0], [16], [17]])]
    calls = [Call("encode", (tokens, mask, rows))]
    for t, step_tokens in enumerate(steps, start=1):
        calls.append(Call("decode_step", (step_tokens, row_mask, torch.ones(4, t, dtype=torch.int64))))
        calls.append(Call("reorder_cache", (torch.tensor([1, 0, 3, 2]),)))
    one = tokens[:1, :4]
    calls.append(Call("encode", (one, torch.ones_like(one), torch.tensor([0]))))
    calls.append(Call("decode_step", (torch.full((1, 1), pad), torch.ones_like(one), torch.ones(1, 1, dtype=torch.int64))))
    return calls
