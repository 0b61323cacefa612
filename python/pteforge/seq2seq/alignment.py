"""Whisper's word timing: the cross-attention scores of the alignment heads.

openai-whisper, CTranslate2 and faster-whisper time words from a few decoder heads
whose cross-attention follows the audio (the model's `alignment_heads`, [layer, head]
pairs): one teacher-forced decoder pass over a window's text gives, for every token,
those heads' scores over the encoder positions, and dynamic time warping over them
gives each token's time (cc/whisper/word_timing.h does that part). The pass is the
program's `align` method (cache.py); this module picks the heads and collects their
scores while the decoder runs: cached_attention (attention.py) hands every
cross-attention call to the collector found under SCORES in its masks.
"""

from __future__ import annotations

import torch
from torch import nn

# The key of attention.MASKS under which an align call passes its ScoreCollector.
SCORES = "alignment_scores"
# Set on a decoder cross-attention module: the heads of it that are alignment heads.
_HEADS = "_pteforge_alignment_heads"


def alignment_heads(model: nn.Module) -> list[tuple[int, int]]:
    """The model's generation_config.alignment_heads; without them, every head of the
    decoder's second half (openai-whisper's and CTranslate2's default)."""
    heads = getattr(getattr(model, "generation_config", None), "alignment_heads", None)
    if heads:
        return [(int(layer), int(head)) for layer, head in heads]
    layers, count = model.config.decoder_layers, model.config.decoder_attention_heads
    return [(layer, head) for layer in range(layers // 2, layers) for head in range(count)]


def mark_alignment_heads(cross_attentions: list[nn.Module], heads: list[tuple[int, int]]) -> None:
    """Marks each layer's cross-attention module with its alignment heads (in the order
    given: CTranslate2 concatenates them layer by layer in that order)."""
    for index, module in enumerate(cross_attentions):
        setattr(module, _HEADS, [head for layer, head in heads if layer == index])


class ScoreCollector:
    """Collects, during one decoder pass of row 0, the scaled scores (before the softmax)
    of the alignment heads over row 0's source: [heads, tokens, source positions]."""

    def __init__(self, source_slot: torch.Tensor | None):
        self.source_slot = source_slot  # [1]: row 0's source slot; None: one slot
        self.scores: list[torch.Tensor] = []

    def add(self, module: nn.Module, query: torch.Tensor, key: torch.Tensor, scale: float) -> None:
        """query [1, H, tokens, d] of row 0; key [H, slots, positions, d] (the cache)."""
        heads = getattr(module, _HEADS, None)
        if not heads:
            return
        index = torch.tensor(heads, dtype=torch.int64)
        queries = query[0].index_select(0, index) * scale
        keys = key.index_select(0, index)
        keys = keys[:, 0] if self.source_slot is None else keys.index_select(1, self.source_slot)[:, 0]
        self.scores.append(torch.bmm(queries, keys.transpose(1, 2)))

    def result(self) -> torch.Tensor:
        if not self.scores:
            raise AssertionError("no alignment head ran: the cross-attention modules are not marked")
        return torch.cat(self.scores, dim=0)
