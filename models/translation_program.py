"""What every translation .pte carries besides its entry points: constant methods that
cc/translate reads to tokenize, search and decode with no flags from the user.

"family" says which model family the program is ("marian": Hugging Face MarianMT
exports, models/opus; "bergamot": Marian-toolkit models, models/bergamot), and so
which entry-point signatures and family constants (FAMILY_CONSTANTS) to expect.
"""

from __future__ import annotations

from typing import Any

from pteforge import ExportError, MultiMethodExporter

# Read by cc/translate/translator.cc for every family.
TRANSLATION_CONSTANTS = (
    "family", "model_name", "weights_are_random", "source_spm", "target_spm", "vocab",
    "decoder_start_token_id", "eos_token_id", "pad_token_id", "unk_token_id",
    "num_beams", "max_length", "length_penalty", "early_stopping", "forced_eos",
    "max_rows", "max_source_length", "max_target_length",
)

# Read in addition, per family.
FAMILY_CONSTANTS = {
    "marian": (),
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


def add_translation_constants(exporter: MultiMethodExporter, values: dict[str, Any]) -> None:
    """Adds the constants of values["family"], all of which `values` must hold."""
    names = TRANSLATION_CONSTANTS + FAMILY_CONSTANTS[values["family"]]
    missing = [name for name in names if name not in values]
    if missing:
        raise ExportError(f"translation constants missing: {', '.join(missing)}")
    for name in names:
        exporter.constant(name, values[name])
