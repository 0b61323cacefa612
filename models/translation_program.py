"""What a translation .pte carries besides its entry points: constant methods that
cc/seq2seq's translator reads to tokenize, search and decode with no flags from the user.

Two kinds of program use these:
  - "bergamot" (Marian-toolkit models, models/bergamot): every constant below is its own
    (TRANSLATION_CONSTANTS and FAMILY_CONSTANTS["bergamot"]).
  - pteforge.seq2seq programs ("seq2seq": Hugging Face encoder-decoders, OPUS-MT among
    them) carry their generation settings as pteforge.seq2seq.program_constants says;
    one whose tokenizer is SentencePiece (OPUS-MT, models/opus) adds
    SENTENCEPIECE_CONSTANTS instead of a tokenizer.json.
"""

from __future__ import annotations

from typing import Any

from pteforge import ExportError, MultiMethodExporter

# A SentencePiece tokenizer with Marian's vocabulary (cc/text/marian_tokenizer.h), and
# what the translator says about the model.
SENTENCEPIECE_CONSTANTS = ("model_name", "weights_are_random", "source_spm", "target_spm", "vocab", "unk_token_id")

# Read by cc/seq2seq/translation_model.cc for a "bergamot" program.
TRANSLATION_CONSTANTS = SENTENCEPIECE_CONSTANTS + (
    "family", "decoder_start_token_id", "eos_token_id", "pad_token_id",
    "num_beams", "max_length", "length_penalty", "early_stopping", "forced_eos",
    "max_rows", "max_source_length", "max_target_length",
)

# Read in addition, per family.
FAMILY_CONSTANTS = {
    # shortlist: Marian's binary lexical shortlist file; its candidates are padded to
    # a multiple of shortlist_multiple. max_length_factor: at most
    # ceil(factor x source tokens) generated tokens.
    "bergamot": ("shortlist", "shortlist_multiple", "max_length_factor"),
}


def vocab_text(pieces: list[str]) -> str:
    """The pieces in id order, one per line (empty for an id without a piece)."""
    if any("\n" in piece for piece in pieces):
        raise ExportError("a vocabulary piece contains a newline; the vocabulary cannot be stored")
    return "\n".join(pieces)


def _add(exporter: MultiMethodExporter, names: tuple[str, ...], values: dict[str, Any]) -> None:
    missing = [name for name in names if name not in values]
    if missing:
        raise ExportError(f"translation constants missing: {', '.join(missing)}")
    for name in names:
        exporter.constant(name, values[name])


def add_translation_constants(exporter: MultiMethodExporter, values: dict[str, Any]) -> None:
    """Adds the constants of values["family"], all of which `values` must hold."""
    _add(exporter, TRANSLATION_CONSTANTS + FAMILY_CONSTANTS[values["family"]], values)


def add_sentencepiece_constants(exporter: MultiMethodExporter, values: dict[str, Any]) -> None:
    """Adds SENTENCEPIECE_CONSTANTS to a pteforge.seq2seq program's exporter."""
    _add(exporter, SENTENCEPIECE_CONSTANTS, values)
