"""load_seq2seq: a seq2seq .pte (export_seq2seq_lm) in ExecuTorch's Python runtime, with
generate()'s greedy and beam search over its encode / decode_step / reorder_cache.

    program = load_seq2seq("t5.pte")
    ids = program.generate([[13, 7, 1], [21, 1]])                 # token ids per source
    ids = program.generate(features, num_beams=4)                # Whisper: [b, mel, frames]

The tokens are generate()'s (search.py): the model's start token and generation
settings come from the program's constants.
"""

from __future__ import annotations

import os

import torch

from pteforge.run.runtime import LoadedProgram
from pteforge.seq2seq import search
from pteforge.seq2seq.program_constants import FAMILY


class _Rows:
    """search.Decoder over the program's rows for one batch of sources."""

    def __init__(self, program: LoadedProgram, source_mask: torch.Tensor | None):
        self.program, self.source_mask = program, source_mask

    def step(self, tokens: torch.Tensor, length: int) -> torch.Tensor:
        decoder_mask = torch.ones(tokens.shape[0], length, dtype=torch.int64)
        masks = (decoder_mask,) if self.source_mask is None else (self.source_mask, decoder_mask)
        (logits,) = self.program.run("decode_step", tokens[:, None], *masks)
        return logits

    def reorder(self, beam_rows: torch.Tensor) -> None:
        self.program.run("reorder_cache", beam_rows)
        # Beams move within their source: the source mask's rows stay as they are.


class LoadedSeq2Seq:
    """A loaded seq2seq program. Not thread-safe. Args: source: .pte bytes or a path."""

    def __init__(self, source: bytes | str | os.PathLike):
        self.program = LoadedProgram(source)
        if "family" not in self.program.method_names or self.constant("family") != FAMILY:
            raise ValueError("this .pte is not a seq2seq program exported by pteforge.seq2seq "
                             "(no family='seq2seq' constant)")
        self.speech = self.constant("encoder_input") == "input_features"
        self.max_rows = int(self.constant("max_rows"))
        # Programs from before max_sources kept a source per row.
        self.max_sources = (int(self.constant("max_sources")) if "max_sources" in self.program.method_names
                            else self.max_rows)
        self.max_source_length = int(self.constant("max_source_length"))

    def constant(self, name: str):
        (value,) = self.program.run(name)
        return value

    def _ids(self, name: str) -> tuple[int, ...]:
        return tuple(int(i) for i in self.constant(name).tolist())

    def settings(self, num_beams: int | None = None, max_length: int | None = None,
                 prompt: tuple[int, ...] | None = None) -> search.Settings:
        """The program's generation settings, with the given ones instead."""
        limit = int(self.constant("max_target_length"))
        return search.Settings(
            prompt=prompt or (int(self.constant("decoder_start_token_id")),),
            eos_token_ids=self._ids("eos_token_ids"),
            pad_token_id=int(self.constant("pad_token_id")),
            max_length=min(max_length or int(self.constant("max_length")), limit),
            num_beams=num_beams or int(self.constant("num_beams")),
            length_penalty=float(self.constant("length_penalty")),
            early_stopping=bool(self.constant("early_stopping")),
            min_length=int(self.constant("min_length")),
            forced_bos_token_id=int(self.constant("forced_bos_token_id")),
            forced_eos_token_id=int(self.constant("forced_eos_token_id")),
            bad_words_ids=self._ids("bad_words_ids"),
            suppress_tokens=self._ids("suppress_tokens"),
            begin_suppress_tokens=self._ids("begin_suppress_tokens"),
            renormalize_logits=bool(self.constant("renormalize_logits")),
        )

    def generate(self, sources, num_beams: int | None = None, max_length: int | None = None,
                 prompt: tuple[int, ...] | None = None) -> list[list[int]]:
        """The generated tokens per source (after the decoder prompt, up to and
        including the end-of-sequence token), as transformers' generate().

        sources: token ids per source (text), or input_features [b, mel, frames] (Whisper).
        prompt: the decoder's first tokens (default: the start token).
        """
        settings = self.settings(num_beams, max_length, prompt)
        count = len(sources)
        rows = count * settings.num_beams
        if rows > self.max_rows or count > self.max_sources:
            raise ValueError(f"{count} sources x {settings.num_beams} beams need {rows} rows; the program has "
                             f"max_rows={self.max_rows} and max_sources={self.max_sources}")
        if settings.max_length <= len(settings.prompt):
            raise ValueError(f"max_length={settings.max_length} leaves no room after the {len(settings.prompt)} "
                             "prompt tokens")
        row_sources = torch.arange(count).repeat_interleave(settings.num_beams)
        if self.speech:
            self.program.run("encode", torch.as_tensor(sources, dtype=torch.float32), row_sources)
            decoder = _Rows(self.program, None)
        else:
            ids, mask = self._padded(sources)
            self.program.run("encode", ids, mask, row_sources)
            decoder = _Rows(self.program, mask.index_select(0, row_sources))
        run = search.greedy if settings.num_beams == 1 else search.beam
        return run(decoder, count, settings)

    def _padded(self, sources: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        longest = max(len(s) for s in sources)
        if not longest or longest > self.max_source_length:
            raise ValueError(f"sources must have 1 to max_source_length={self.max_source_length} tokens "
                             f"(the longest has {longest})")
        pad = int(self.constant("pad_token_id"))
        ids = torch.full((len(sources), longest), max(pad, 0), dtype=torch.int64)
        mask = torch.zeros(len(sources), longest, dtype=torch.int64)
        for i, source in enumerate(sources):
            ids[i, :len(source)] = torch.tensor(source)
            mask[i, :len(source)] = 1
        return ids, mask


def load_seq2seq(source: bytes | str | os.PathLike) -> LoadedSeq2Seq:
    """Loads a .pte made by export_seq2seq_lm; see LoadedSeq2Seq."""
    return LoadedSeq2Seq(source)
