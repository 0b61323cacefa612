"""export_seq2seq_lm: a transformers encoder-decoder (T5, BART, Marian, M2M100, Whisper)
to one .pte with encode, decode_step and reorder_cache sharing its cache, checked
against eager PyTorch (pteforge's conformance).

    from pteforge.seq2seq import export_seq2seq_lm
    program = export_seq2seq_lm(model, max_source_len=64, max_target_len=64, max_rows=8,
                                backend="xnnpack", tokenizer_dir="path/to/model")
    program = export_seq2seq_lm(model, max_rows=4, max_sources=1, ...)  # one source, up to 4 beams
    program.save("model.pte")

make_exporter is the same for `pteforge-export --hf_seq2seq=DIR`: it loads the model
from a local Hugging Face folder.
"""

from __future__ import annotations

import copy
import dataclasses
import os

import torch
from torch import nn
from torch.export import Dim

from pteforge.lower import quantize as quantize_lib
from pteforge.program.exporter import MultiMethodExporter
from pteforge.program.pte_program import PteProgram
from pteforge.seq2seq import families, program_constants
from pteforge.seq2seq.cache import ROW_SOURCES, SELF_SLOTS, Seq2SeqWithCache, with_cache
from pteforge.support.errors import ExportError
from pteforge.support.quiet import held_back
from pteforge.support.spec import BACKENDS, DYNAMIC_INT8_TOLERANCE, SCALED_TOLERANCE, Call

QUANTIZATIONS = (None, "int8")
DEFAULTS = {"max_source_len": 128, "max_target_len": 128, "max_rows": 8}  # max_sources: max_rows
# Conformance runs sources of up to 5 tokens for 3 steps (and as many rows as there are).
_MIN_ROWS, _MIN_SOURCE, _MIN_TARGET = 1, 5, 4


@dataclasses.dataclass(frozen=True)
class Limits:
    max_source_len: int
    max_target_len: int
    max_rows: int
    max_sources: int


def _checked_limits(model: nn.Module, max_source_len: int | None, max_target_len: int,
                    max_rows: int, max_sources: int | None) -> Limits:
    """The limits, checked against the model's own (ExportError names the one broken)."""
    source_limit = families.source_limit(model)
    if families.is_speech(model):
        # Whisper's encoder takes exactly max_source_positions (30 s of audio).
        if max_source_len not in (None, source_limit):
            raise ExportError(f"max_source_len={max_source_len}: a {type(model).__name__} encoder always takes "
                              f"{source_limit} positions (its max_source_positions); leave max_source_len unset")
        max_source_len = source_limit
    for name, value, least in (("max_source_len", max_source_len, _MIN_SOURCE),
                               ("max_target_len", max_target_len, _MIN_TARGET), ("max_rows", max_rows, _MIN_ROWS)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ExportError(f"{name}={value!r}: must be an integer of at least {least}")
    if source_limit is not None and max_source_len > source_limit:
        raise ExportError(f"max_source_len={max_source_len} exceeds the model's {source_limit} source positions")
    target_limit = families.target_limit(model)
    if target_limit is not None and max_target_len > target_limit:
        raise ExportError(f"max_target_len={max_target_len} exceeds the {target_limit} decoder positions of the "
                          f"model's position table")
    if max_sources is None:
        max_sources = max_rows
    if not isinstance(max_sources, int) or isinstance(max_sources, bool) or not 1 <= max_sources <= max_rows:
        raise ExportError(f"max_sources={max_sources!r}: must be an integer from 1 to max_rows ({max_rows})")
    return Limits(max_source_len, max_target_len, max_rows, max_sources)


def seq2seq_exporter(
    model: nn.Module,
    max_source_len: int | None = DEFAULTS["max_source_len"],
    max_target_len: int = DEFAULTS["max_target_len"],
    max_rows: int = DEFAULTS["max_rows"],
    quantize: str | None = None,
    tokenizer_dir: str | os.PathLike | None = None,
    name: str | None = None,
    max_sources: int | None = None,
) -> MultiMethodExporter:
    """The configured MultiMethodExporter behind export_seq2seq_lm (for callers who want
    to add constants or conformance calls before exporting). Same arguments."""
    # On a copy: the caller's model keeps its attention implementation and weights.
    return _exporter(copy.deepcopy(model), max_source_len, max_target_len, max_rows, quantize, tokenizer_dir, name,
                     max_sources)


def _exporter(model: nn.Module, max_source_len: int | None, max_target_len: int, max_rows: int,
              quantize: str | None, tokenizer_dir: str | os.PathLike | None, name: str | None,
              max_sources: int | None = None) -> MultiMethodExporter:
    """seq2seq_exporter over `model` itself, which it switches and may quantize."""
    if quantize not in QUANTIZATIONS:
        raise ExportError(f"quantize={quantize!r}: expected None or 'int8'")
    families.check_supported(model)
    limits = _checked_limits(model, max_source_len, max_target_len, max_rows, max_sources)
    module = with_cache(model, limits.max_rows, limits.max_source_len, limits.max_target_len, limits.max_sources)
    if quantize:
        quantize_lib.QUANTIZERS[quantize](module)
    notes: list[str] = []
    constants = program_constants.model_constants(model, limits, notes)
    if families.is_speech(model):  # which heads align's scores are (word timing)
        constants["alignment_heads"] = torch.tensor(module.alignment_heads, dtype=torch.int64)
    if tokenizer_dir is not None:
        constants.update(program_constants.tokenizer_constants(tokenizer_dir, constants["vocab_size"]))

    exporter = MultiMethodExporter(module, name=name or families.model_type(model))
    exporter.shared_state("cache", *([ROW_SOURCES] if limits.max_sources > 1 else []),
                          *([SELF_SLOTS] if limits.max_rows > 1 else []))
    for note in notes:
        exporter.note(note)
    _add_methods(exporter, module, constants, limits)
    exporter.conformance_tolerance(DYNAMIC_INT8_TOLERANCE if quantize else SCALED_TOLERANCE)
    for key, value in constants.items():
        exporter.constant(key, value)
    return exporter


def _conformance_rows(limits: Limits) -> tuple[list[int], list[int]]:
    """The decoder rows of the conformance calls (rows[i] = the source of row i) and the
    reorder they make: two sources with two beams each, else as many as the limits hold
    (one source: up to four beams)."""
    beams = min(limits.max_rows // min(limits.max_sources, 2), 2 if limits.max_sources > 1 else 4)
    rows = [source for source in range(min(limits.max_sources, 2)) for _ in range(beams)]
    swap = [(row // beams) * beams + (beams - 1 - row % beams) for row in range(len(rows))]
    return rows, swap


def align_limit(limits: Limits) -> int:
    """The longest sequence align takes: a window's text (Whisper's search generates at
    most half the decoder positions) with up to 3 start tokens, <|notimestamps|> and
    <|endoftext|>."""
    return min(limits.max_target_len, limits.max_target_len // 2 + 5)


def _add_methods(exporter: MultiMethodExporter, module: Seq2SeqWithCache, constants: dict,
                 limits: Limits) -> None:
    """encode / decode_step / reorder_cache with their dynamic shapes, and the
    conformance calls: two sources with two beams each (fewer rows when max_rows is
    smaller) for three steps with reorders, then a new, shorter source."""
    vocab, pad = constants["vocab_size"], constants["pad_token_id"]
    start = constants["decoder_start_token_id"]
    # One row or one source at most: that dimension is static (torch.export cannot take
    # a dimension whose only size is 1 as dynamic).
    rows = Dim("rows", min=1, max=limits.max_rows) if limits.max_rows > 1 else None
    batch = Dim("batch", min=1, max=limits.max_sources) if limits.max_sources > 1 else None
    target = Dim("target", min=1, max=limits.max_target_len)
    generator = torch.Generator().manual_seed(0)
    row_sources, swap = _conformance_rows(limits)
    pick, swap, n = torch.tensor(row_sources), torch.tensor(swap), len(row_sources)
    sources = max(row_sources) + 1
    steps = [torch.full((n, 1), start)] + [torch.randint(0, vocab, (n, 1), generator=generator) for _ in range(2)]
    ones = lambda n, t: torch.ones(n, t, dtype=torch.int64)  # noqa: E731

    def dims(*pairs) -> dict:
        """A dynamic_shapes entry without the dimensions that are static here."""
        return {axis: dim for axis, dim in pairs if dim is not None}

    speech = families.is_speech(module.model)
    if speech:
        frames = 2 * limits.max_source_len
        features = torch.randn(2, module.model.config.num_mel_bins, frames, generator=generator)[:sources]
        exporter.method("encode", (features, pick), dynamic_shapes=(dims((0, batch)), dims((0, rows))))
        exporter.method("decode_step", (steps[0], ones(n, 2)),
                        dynamic_shapes=(dims((0, rows)), dims((0, rows), (1, target))),
                        input_ranges={0: (0, vocab - 1)})
        # A prompt for row 0 at once (the previous text Whisper's long form feeds).
        prompt = Dim("prompt", min=2, max=limits.max_target_len - 1)
        exporter.method("prefill", (torch.randint(0, vocab, (1, 3), generator=generator), ones(1, 4),
                                    torch.tensor([2])),
                        dynamic_shapes=({1: prompt}, {1: target}, None),
                        input_ranges={0: (0, vocab - 1), 1: (1, 1), 2: (0, 0)})
        # Word timing: a window's start tokens, <|notimestamps|>, text and <|endoftext|>
        # (a window's text is at most half the positions: Whisper's search).
        aligned = Dim("aligned", min=3, max=align_limit(limits))
        exporter.method("align", (torch.randint(0, vocab, (1, min(6, align_limit(limits))), generator=generator),),
                        dynamic_shapes=({1: aligned},), input_ranges={0: (0, vocab - 1)})
        first, second = (features, pick), (features[:1], torch.tensor([0]))
        row_mask = second_mask = None
    else:
        source = Dim("source", min=1, max=limits.max_source_len)
        ids = torch.randint(0, vocab, (2, 5), generator=generator)
        mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
        ids = torch.where(mask.bool(), ids, torch.tensor(pad))[:sources]
        mask = mask[:sources]
        row_mask = mask.index_select(0, pick)
        exporter.method("encode", (ids, mask, pick),
                        dynamic_shapes=(dims((0, batch), (1, source)), dims((0, batch), (1, source)), dims((0, rows))),
                        input_ranges={0: (0, vocab - 1), 1: (1, 1), 2: (0, 0)})
        exporter.method("decode_step", (steps[0], row_mask, ones(n, 2)),
                        dynamic_shapes=(dims((0, rows)), dims((0, rows), (1, source)), dims((0, rows), (1, target))),
                        input_ranges={0: (0, vocab - 1), 1: (1, 1), 2: (1, 1)})
        first, second = (ids, mask, pick), (ids[:1, :3], mask[:1, :3], torch.tensor([0]))
        second_mask = mask[:1, :3]

    def step_masks(source_mask, n: int, t: int) -> tuple:
        """decode_step's masks after the tokens (Whisper's decoder takes no source mask)."""
        return (ones(n, t),) if speech else (source_mask, ones(n, t))

    exporter.method("reorder_cache", (swap,), dynamic_shapes=(dims((0, rows)),), input_ranges={0: (0, 0)})
    calls = [Call("encode", first)]
    for t, tokens in enumerate(steps, start=1):
        calls.append(Call("decode_step", (tokens, *step_masks(row_mask, n, t))))
        calls.append(Call("reorder_cache", (swap,)))
    calls.append(Call("encode", second))
    calls.append(Call("decode_step", (torch.full((1, 1), start), *step_masks(second_mask, 1, 1))))
    if speech:  # three prompt tokens after the start token, then a step reading them
        prompt_tokens = torch.randint(0, vocab, (1, 3), generator=generator)
        calls.append(Call("prefill", (prompt_tokens, ones(1, 4), torch.tensor([1]))))
        calls.append(Call("decode_step", (torch.full((1, 1), start), ones(1, 5))))
        calls.append(Call("align", (torch.randint(0, vocab, (1, min(7, align_limit(limits))), generator=generator),)))
    exporter.call_sequence(calls)


def export_seq2seq_lm(
    model: nn.Module,
    max_source_len: int | None = DEFAULTS["max_source_len"],
    max_target_len: int = DEFAULTS["max_target_len"],
    max_rows: int = DEFAULTS["max_rows"],
    backend: str = "portable",
    quantize: str | None = None,
    tokenizer_dir: str | os.PathLike | None = None,
    max_sources: int | None = None,
) -> PteProgram:
    """Exports a transformers encoder-decoder to a verified .pte.

    Args:
      model: a transformers AutoModelForSeq2SeqLM or AutoModelForSpeechSeq2Seq of a
        family in pteforge.seq2seq.families.SUPPORTED, eval mode, float32. Not modified.
      max_source_len: longest source in tokens (Whisper: None, its encoder's fixed
        max_source_positions).
      max_target_len: most decoder positions, the start token included.
      max_rows: most decoder rows at once (sources x beams).
      backend: "portable" or "xnnpack".
      quantize: None or "int8" (int8 weights per output channel with dynamically
        quantized int8 activations; XNNPACK only).
      tokenizer_dir: a folder with the model's tokenizer.json, stored in the .pte.
      max_sources: most sources at once (default: max_rows). Every decoder step attends
        over the cross-attention keys of all of them, masked: a program that decodes
        one source at a time (greedy or with beams) is fastest with 1.

    Returns:
      The program: encode, decode_step, reorder_cache (Whisper: also prefill and align;
      pteforge.seq2seq.cache), reset_state and the constants of
      pteforge.seq2seq.program_constants (Whisper: also alignment_heads).

    Raises:
      ExportError: the model or a limit is not supported (the message says why), or
        the program does not match eager PyTorch.
    """
    if backend not in BACKENDS:
        raise ExportError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")
    if quantize and backend != "xnnpack":
        raise ExportError(f"quantize={quantize!r} needs backend='xnnpack' (the portable kernels have no "
                          "quantized matmul)")
    exporter = seq2seq_exporter(model, max_source_len, max_target_len, max_rows, quantize, tokenizer_dir,
                                max_sources=max_sources)
    return exporter.export(backend=backend)


def load_hf_seq2seq(directory: str | os.PathLike) -> nn.Module:
    """AutoModelForSeq2SeqLM (or AutoModelForSpeechSeq2Seq) from a local folder, float32,
    eval mode; nothing is downloaded."""
    directory = os.fspath(directory)
    if not os.path.isfile(os.path.join(directory, "config.json")):
        raise ExportError(f"{directory!r} is not a Hugging Face model folder: it has no config.json")
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoModelForSpeechSeq2Seq

    try:
        with held_back():
            config = AutoConfig.from_pretrained(directory, local_files_only=True)
            auto = AutoModelForSpeechSeq2Seq if config.model_type == "whisper" else AutoModelForSeq2SeqLM
            model = auto.from_pretrained(directory, dtype=torch.float32, local_files_only=True)
    except (OSError, ValueError, KeyError) as error:
        raise ExportError(f"transformers cannot load an encoder-decoder model from {directory!r}: {error}") from error
    return model.eval()


def make_exporter(hf_seq2seq: str, max_source_len: str = "", max_target_len: str = str(DEFAULTS["max_target_len"]),
                  max_rows: str = str(DEFAULTS["max_rows"]), quantize: str = "none",
                  tokenizer_dir: str = "", max_sources: str = "") -> MultiMethodExporter:
    """seq2seq_exporter for a model folder; the arguments as strings (command line).
    max_source_len empty: the default (Whisper: its fixed length). max_sources empty:
    max_rows. tokenizer_dir empty: hf_seq2seq when it has a tokenizer.json."""
    numbers = {}
    for key, text in (("max_source_len", max_source_len), ("max_target_len", max_target_len), ("max_rows", max_rows),
                      ("max_sources", max_sources)):
        try:
            numbers[key] = int(text) if text else None
        except ValueError:
            raise ExportError(f"{key}={text!r} is not an integer") from None
    if not tokenizer_dir and os.path.isfile(os.path.join(hf_seq2seq, "tokenizer.json")):
        tokenizer_dir = hf_seq2seq
    model = load_hf_seq2seq(hf_seq2seq)
    source = numbers["max_source_len"]
    if source is None and not families.is_speech(model):
        source = DEFAULTS["max_source_len"]
    name = os.path.basename(os.path.normpath(hf_seq2seq))
    return _exporter(model, source, numbers["max_target_len"], numbers["max_rows"],
                     None if quantize == "none" else quantize, tokenizer_dir or None, name, numbers["max_sources"])
