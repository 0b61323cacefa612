"""Exporter factory for OPUS-MT en->fr: `python -m pteforge.export --model=models.opus.export:make_exporter`.

The program is a pteforge.seq2seq one (encode / decode_step / reorder_cache over one
shared cache, and the model's generation settings as constants: see
python/pteforge/seq2seq) whose tokenizer is OPUS-MT's own: the SentencePiece models and
the vocabulary travel as constants (models/translation_program.py's
SENTENCEPIECE_CONSTANTS) instead of a tokenizer.json, and cc/text tokenizes with
them. What this file adds is finding and loading the checkpoint (models/opus/checkpoint.py).
"""

from __future__ import annotations

import logging

from models.opus import checkpoint as checkpoint_lib
from models.translation_program import add_sentencepiece_constants, vocab_text
from pteforge import ExportError, MultiMethodExporter
from pteforge.seq2seq import seq2seq_exporter

_log = logging.getLogger("pteforge")

# What this exporter quantizes: int8 linear layers (pteforge.lower.quantize.int8_linears).
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
    quantization: str = "none",
) -> MultiMethodExporter:
    """The configured exporter.

    Args (strings, as --model_args gives them):
      checkpoint: checkpoint directory (or a file in it); empty: see checkpoint.find().
      max_rows: most decoder rows at once (sentences x beams).
      max_source: longest source in tokens, </s> included.
      max_target: most decoder positions, the start token included.
      quantization: "none" (float32) or "int8" (int8 weights per channel, dynamically
        quantized activations, for XNNPACK: see pteforge.lower.quantize). Not bit-exact
        with Hugging Face any more.
    """
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
    model = ckpt.model
    # generate() reads the checkpoint's generation_config.json; so do the program's constants.
    model.generation_config = ckpt.generation
    exporter = seq2seq_exporter(model, int(max_source), int(max_target), int(max_rows),
                                quantize=None if quantization == "none" else quantization, name=ckpt.name)
    add_sentencepiece_constants(exporter, {
        "model_name": ckpt.name,
        "weights_are_random": ckpt.random,
        "source_spm": ckpt.source_spm,
        "target_spm": ckpt.target_spm,
        "vocab": vocab_text(_pieces(ckpt.vocab, model.config.vocab_size)),
        "unk_token_id": ckpt.vocab.get("<unk>", 1),
    })
    return exporter


def _pieces(vocab: dict[str, int], size: int) -> list[str]:
    """The pieces in id order ("" for an id without a piece)."""
    pieces = [""] * size
    for piece, index in vocab.items():
        if 0 <= index < size:
            pieces[index] = piece
    return pieces
