"""A sliding-window layer's cache as a ring of `window` positions, for programs whose
max_seq_len is longer than the window (Mistral, Qwen2 with use_sliding_window, Gemma's
local layers).

transformers' StaticSlidingWindowLayer decides with a Python int how full it is, so a
traced program would keep the branch of the example call. RollingWindowLayer decides
nothing: position p is always written at slot p % window, and a step attends to the
ring as it was before the step followed by the step's own keys and values:

    keys = cat(ring [window], new [T])        the ring is read before it is written
    ring[(p + t) % window] = new[t]           for the last min(T, window) of the new ones

(decode_step writes its one slot in place; prefill, whose T is a symbol, rewrites the
ring from `keys` with one gather.)

Attention does not care in which order keys come, only which it may see. A query at
position q sees the key at position k when q - window < k <= q (transformers' sliding
window: the last `window` positions, itself included), and a ring slot j holds the
latest position before p congruent to j (none while the ring is still filling):
window_mask(p, T, window) is that rule as an additive mask [1, 1, T, window + T], which
pteforge's grouped attention uses for these layers instead of transformers' mask (whose
kv offsets cannot describe a ring). CausalLmWithCache makes one per window per step and
hands them to the attention through the model's keyword arguments (WINDOW_MASKS: by
layer index, which every transformers attention module knows as `layer_idx`).
"""

from __future__ import annotations

import functools

import torch
from torch.fx.experimental.symbolic_shapes import statically_known_true

# The model keyword argument carrying {layer index: mask}; transformers passes it on to
# the attention function.
WINDOW_MASKS = "pteforge_window_masks"


def rolling_window_layer(window: int):
    """A transformers cache layer (a StaticLayer of `window` positions) that rolls."""
    return _rolling_window_class()(window)


@functools.cache
def _rolling_window_class():
    """RollingWindowLayer, defined on first use: pteforge.llm imports transformers only
    when a model is exported."""
    from transformers.cache_utils import StaticLayer

    class RollingWindowLayer(StaticLayer):
        is_sliding = True

        def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
            count, window, position = key_states.shape[-2], self.max_cache_len, self.cumulative_length
            keys = torch.cat([self.keys, key_states], dim=-2)
            values = torch.cat([self.values, value_states], dim=-2)
            if statically_known_true(count <= window):
                # A known count that fits (decode_step): its slots, written in place.
                slots = torch.remainder(torch.arange(count) + position, window)
                self.keys.index_copy_(2, slots, key_states)
                self.values.index_copy_(2, slots, value_states)
            else:
                # A count traced as a symbol (prefill), or more than the ring holds: each
                # slot takes the last new position that falls on it, or keeps its own.
                # (Writing only the last `window` new ones would need min(count, window)
                # as a slice bound, which torch.export cannot keep symbolic.)
                slots = torch.arange(window)
                # (Dividends kept >= 0: ExecuTorch's remainder truncates negative ones.)
                last_new = (count - 1) - torch.remainder((count - 1) - slots + position + window, window)
                source = torch.where(last_new >= 0, window + last_new, slots)
                self.keys.copy_(keys.index_select(2, source))
                self.values.copy_(values.index_select(2, source))
            self.cumulative_length.add_(count)
            return keys, values

        def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
            # transformers builds a mask of this size, which the grouped attention does
            # not use for this layer (window_mask does).
            return self.max_cache_len + query_length, 0

    return RollingWindowLayer


def window_mask(position: torch.Tensor, count: int, window: int) -> torch.Tensor:
    """The additive mask [1, 1, count, window + count] of a step of `count` tokens at
    `position` over RollingWindowLayer's keys (the module docstring's rule)."""
    last = position - 1
    slots = torch.arange(window)
    # Slot j's latest position before `position`; negative while the ring fills.
    ring_positions = last - torch.remainder(last - slots + window, window)  # dividend >= 0, as above
    new_positions = position + torch.arange(count)
    keys = torch.cat([ring_positions, new_positions])
    queries = new_positions.unsqueeze(1)
    visible = (keys >= 0) & (keys <= queries) & (keys > queries - window)
    return torch.where(visible, 0.0, torch.finfo(torch.float32).min).view(1, 1, count, window + count)
