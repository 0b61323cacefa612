"""A .pte from export_seq2seq_lm generates what transformers' generate() generates, for a
tiny model of every supported family on both backends: greedy over sources of several
lengths, 4 beams over two sources, and the same again after reset_state."""

import pytest
import torch
from transformers.generation.utils import GenerationMixin

from pteforge import testing
from pteforge.seq2seq import export_seq2seq_lm, load_seq2seq
from pteforge.seq2seq.testing_models import FAMILIES, tiny_model

MAX_LENGTH = 12


def _sources(model, count: int):
    """`count` sources of different lengths: token ids ending with </s> (text), or
    log-mel features (Whisper)."""
    generator = torch.Generator().manual_seed(count)
    if model.config.model_type == "whisper":
        frames = 2 * model.config.max_source_positions
        return torch.randn(count, model.config.num_mel_bins, frames, generator=generator)
    eos = model.config.eos_token_id
    return [torch.randint(3, 90, (length,), generator=generator).tolist() + [eos] for length in (6, 2, 4)[:count]]


def _reference(model, sources, beams: int) -> list[list[int]]:
    """generate()'s tokens after the start token, up to and including </s>."""
    if model.config.model_type == "whisper":
        # GenerationMixin's generate: Whisper's own adds language detection and
        # timestamps, which a random tiny model has no tokens for.
        sequences = GenerationMixin.generate(model, input_features=sources, num_beams=beams, do_sample=False,
                                             max_length=MAX_LENGTH)
    else:
        longest = max(len(s) for s in sources)
        pad = model.config.pad_token_id
        ids = torch.tensor([s + [pad] * (longest - len(s)) for s in sources])
        mask = torch.tensor([[1] * len(s) + [0] * (longest - len(s)) for s in sources])
        sequences = model.generate(input_ids=ids, attention_mask=mask, num_beams=beams, do_sample=False,
                                   max_length=MAX_LENGTH)
    eos = model.config.eos_token_id
    out = []
    for row in sequences[:, 1:].tolist():
        out.append(row[:row.index(eos) + 1] if eos in row else row)
    return out


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
@pytest.mark.parametrize("family", FAMILIES)
def test_tokens_equal_generate(family, backend):
    model = tiny_model(family)
    program = load_seq2seq(export_seq2seq_lm(
        model, max_source_len=None if family == "whisper" else 8, max_target_len=MAX_LENGTH, max_rows=8,
        backend=backend).data)
    greedy_sources, beam_sources = _sources(model, 3), _sources(model, 2)
    expected = {1: _reference(model, greedy_sources, 1), 4: _reference(model, beam_sources, 4)}
    assert len({tuple(tokens) for tokens in expected[1]}) > 1, "the sources should lead to different tokens"
    for _ in range(2):
        assert program.generate(greedy_sources, num_beams=1, max_length=MAX_LENGTH) == expected[1]
        assert program.generate(beam_sources, num_beams=4, max_length=MAX_LENGTH) == expected[4]
        program.program.reset_state()


if __name__ == "__main__":
    testing.main(__file__)
