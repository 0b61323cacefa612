"""Greedy and beam search over a seq2seq program's decode_step, as transformers'
generate() does them (same logits processors, same beam bookkeeping, same stopping
rule), so that a .pte's tokens can be compared with generate's one for one.

The program side is a Decoder: step(tokens [rows], length) -> logits [rows, vocab] for
the `length`-th decoder position, and reorder(beam_rows). As in generate(), greedy
search applies the logits processors to the logits and takes the argmax; beam search
applies them to the log-softmax of the logits. The C++ generator
(cc/generate/search.cc) implements the same search.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Protocol

import torch

_EXCLUDED = -1.0e9  # transformers' "very large negative" for excluded beams


class Decoder(Protocol):
    def step(self, tokens: torch.Tensor, length: int) -> torch.Tensor: ...

    def reorder(self, beam_rows: torch.Tensor) -> None: ...


@dataclasses.dataclass(frozen=True)
class Settings:
    """generate()'s settings (pteforge.seq2seq.program_constants)."""

    prompt: tuple[int, ...]            # the decoder's first tokens (the start token, ...)
    eos_token_ids: tuple[int, ...]
    pad_token_id: int
    max_length: int                    # decoder positions, the prompt included
    num_beams: int = 1
    length_penalty: float = 1.0
    early_stopping: bool = False
    min_length: int = 0
    forced_bos_token_id: int = -1
    forced_eos_token_id: int = -1
    bad_words_ids: tuple[int, ...] = ()
    suppress_tokens: tuple[int, ...] = ()
    begin_suppress_tokens: tuple[int, ...] = ()
    renormalize_logits: bool = False


def _force(scores: torch.Tensor, token: int) -> torch.Tensor:
    forced = torch.full_like(scores, -math.inf)
    forced[:, token] = 0.0
    return forced


def process(scores: torch.Tensor, length: int, settings: Settings) -> torch.Tensor:
    """generate()'s logits processors, in its order, for a step at `length` decoder
    tokens so far (its cur_len)."""
    scores = scores.clone()
    prompt = len(settings.prompt)
    if settings.bad_words_ids:
        scores[:, list(settings.bad_words_ids)] = -math.inf
    if length < settings.min_length and settings.eos_token_ids:
        scores[:, list(settings.eos_token_ids)] = -math.inf
    if settings.forced_bos_token_id >= 0 and length == 1:
        scores = _force(scores, settings.forced_bos_token_id)
    if settings.forced_eos_token_id >= 0 and length == settings.max_length - 1:
        scores = _force(scores, settings.forced_eos_token_id)
    if settings.suppress_tokens:
        scores[:, list(settings.suppress_tokens)] = -math.inf
    begin = prompt if (prompt > 1 or settings.forced_bos_token_id < 0) else prompt + 1
    if settings.begin_suppress_tokens and length == begin:
        scores[:, list(settings.begin_suppress_tokens)] = -math.inf
    if settings.renormalize_logits:
        scores = torch.log_softmax(scores, dim=-1)
    return scores


def _feed_prompt(decoder: Decoder, rows: int, settings: Settings) -> torch.Tensor:
    """Runs the prompt through the decoder; the logits after its last token."""
    for position, token in enumerate(settings.prompt, start=1):
        logits = decoder.step(torch.full((rows,), token, dtype=torch.int64), position)
    return logits


def greedy(decoder: Decoder, sources: int, settings: Settings) -> list[list[int]]:
    """generate(num_beams=1, do_sample=False): per source, the tokens after the prompt,
    up to and including the first end-of-sequence token."""
    eos = torch.tensor(settings.eos_token_ids, dtype=torch.int64)
    sequences = torch.tensor([list(settings.prompt)] * sources, dtype=torch.int64)
    unfinished = torch.ones(sources, dtype=torch.bool)
    logits = _feed_prompt(decoder, sources, settings)
    while True:
        length = sequences.shape[1]
        tokens = process(logits, length, settings).argmax(dim=-1)
        tokens = torch.where(unfinished, tokens, torch.tensor(settings.pad_token_id))
        sequences = torch.cat([sequences, tokens[:, None]], dim=1)
        unfinished &= ~torch.isin(tokens, eos)
        if not unfinished.any() or sequences.shape[1] >= settings.max_length:
            break
        logits = decoder.step(tokens, sequences.shape[1])
    return [_trim(row[len(settings.prompt):].tolist(), settings) for row in sequences]


def _trim(tokens: list[int], settings: Settings) -> list[int]:
    out = []
    for token in tokens:
        out.append(token)
        if token in settings.eos_token_ids:
            break
    return out


def _gather(values: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    """values[b, indices[b, k], ...] (transformers' _gather_beams)."""
    while indices.dim() < values.dim():
        indices = indices.unsqueeze(-1)
    return torch.take_along_dim(values, indices, dim=1)


def beam(decoder: Decoder, sources: int, settings: Settings) -> list[list[int]]:
    """generate(num_beams=k, do_sample=False): per source, the best finished hypothesis'
    tokens after the prompt. The decoder holds sources x k rows (source-major)."""
    beams, prompt = settings.num_beams, len(settings.prompt)
    eos = torch.tensor(settings.eos_token_ids, dtype=torch.int64)
    keep = max(2, 1 + len(settings.eos_token_ids)) * beams
    top_beams = torch.cat([torch.ones(beams, dtype=torch.bool), torch.zeros(keep - beams, dtype=torch.bool)])
    fill = settings.pad_token_id if settings.pad_token_id >= 0 else settings.eos_token_ids[0]
    running = torch.full((sources, beams, settings.max_length), fill, dtype=torch.int64)
    running[:, :, :prompt] = torch.tensor(settings.prompt)
    finished = running.clone()
    running_scores = torch.zeros(sources, beams)
    running_scores[:, 1:] = _EXCLUDED
    finished_scores = torch.full((sources, beams), _EXCLUDED)
    is_finished = torch.zeros(sources, beams, dtype=torch.bool)
    can_improve = torch.ones(sources, 1, dtype=torch.bool)
    logits = _feed_prompt(decoder, sources * beams, settings)
    length = prompt
    while True:
        log_probs = torch.log_softmax(logits, dim=-1)
        scores = process(log_probs, length, settings).view(sources, beams, -1) + running_scores[:, :, None]
        vocab = scores.shape[-1]
        top_scores, top_indices = torch.topk(scores.view(sources, -1), k=keep)
        from_beam = top_indices // vocab
        candidates = _gather(running, from_beam)
        candidates[:, :, length] = top_indices % vocab
        hits_stop = torch.isin(candidates[:, :, length], eos) | (length + 1 >= settings.max_length)

        # The best unfinished continuations run on.
        running_candidates = top_scores + hits_stop.to(torch.float32) * _EXCLUDED
        next_beams = torch.topk(running_candidates, k=beams)[1]
        running = _gather(candidates, next_beams)
        running_scores = _gather(running_candidates, next_beams)
        reorder = (_gather(from_beam, next_beams) + torch.arange(sources)[:, None] * beams).reshape(-1)

        # Finished continuations among the top `beams` join the finished ones if better.
        just_finished = hits_stop & top_beams[None, :]
        penalized = top_scores / ((length + 1 - prompt) ** settings.length_penalty)
        full = is_finished.all(dim=-1, keepdim=True) & settings.early_stopping
        penalized = penalized + full.to(torch.float32) * _EXCLUDED
        penalized = penalized + (~can_improve).to(torch.float32) * _EXCLUDED
        penalized = penalized + (~just_finished).to(torch.float32) * _EXCLUDED
        merged = torch.cat([finished_scores, penalized], dim=1)
        best = torch.topk(merged, k=beams)[1]
        finished = _gather(torch.cat([finished, candidates], dim=1), best)
        finished_scores = _gather(merged, best)
        is_finished = _gather(torch.cat([is_finished, just_finished], dim=1), best)

        length += 1
        best_possible = running_scores[:, :1] / ((length - prompt) ** settings.length_penalty)
        worst = torch.where(is_finished, finished_scores.min(dim=1, keepdim=True)[0], torch.tensor(_EXCLUDED))
        can_improve = can_improve & (best_possible > worst).any(dim=-1, keepdim=True)
        open_beam = not (bool(is_finished.all()) and settings.early_stopping)
        if not (bool(can_improve.any()) and open_beam and not bool(hits_stop.all())):
            break
        decoder.reorder(reorder)
        logits = decoder.step(running[:, :, length - 1].reshape(-1), length)
    return [_trim(finished[b, 0, prompt:].tolist(), settings) for b in range(sources)]
