"""Grouped attention over the static cache, written so that XNNPACK runs all of it.

transformers' "sdpa" attention under torch.export becomes SDPA's math decomposition:
grouped-query models repeat every layer's whole cache to the query heads (a portable
`expand_copy` and an XNNPACK copy of max_seq_len positions, twice per layer and step),
and guard fully masked rows with portable `logical_not` / `any` / `where`. On a
SmolLM2-135M-sized Llama that was a third of a decode step, and each portable operator
cut the XNNPACK delegate in two.

`grouped_attention` is the same arithmetic on the cache as it is: the query heads that
share a key/value head become rows of one matrix (q [1, H, T, d] -> [KV, G*T, d]), so
two batched matmuls, an add of the mask and a softmax over the last dimension do the
work, all of them XNNPACK operators. The mask is transformers' additive float mask
(`eager_mask`, made once per step and shared by the layers): a masked position holds
the dtype's lowest value, never -inf, so no row is ever all -inf and needs no guard.

`use_grouped_attention(model)` switches a model to it (CausalLmWithCache does, on the
copy of the user's model it exports: the switch is a config change that torch.export
could not trace inside a method, and the user's model stays as it was). Eager
conformance runs the same module, so both sides compute the same way. Calls it does
not cover (batch > 1, attention sinks, dropout) go to transformers' own sdpa attention.
"""

from __future__ import annotations

import torch
from torch import nn

from pteforge.llm.rolling_window import WINDOW_MASKS

IMPLEMENTATION = "pteforge_grouped"


def grouped_attention(module: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                      attention_mask: torch.Tensor | None, dropout: float = 0.0, scaling: float | None = None,
                      softcap: float | None = None, **kwargs) -> tuple[torch.Tensor, None]:
    """transformers' attention-function signature: query [1, H, T, d], key [1, KV, S, d],
    value [1, KV, S, dv], an additive mask [1, 1, T, S]; returns ([1, T, H, dv], None)."""
    window_masks = kwargs.pop(WINDOW_MASKS, None)
    if window_masks and getattr(module, "layer_idx", None) in window_masks:
        # A rolled window's keys are a ring and the step's own (rolling_window.py).
        attention_mask = window_masks[module.layer_idx]
    batch, heads, q_len, head_dim = query.shape
    kv_heads, kv_len = key.shape[1], key.shape[2]
    if (batch != 1 or heads % kv_heads or dropout or kwargs.get("s_aux") is not None
            or attention_mask is None or attention_mask.dtype == torch.bool):
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout,
                                      scaling=scaling, softcap=softcap, **kwargs)
    groups = heads // kv_heads
    scale = head_dim ** -0.5 if scaling is None else scaling
    # Query heads h = k * groups + g use key/value head k (transformers' repeat_kv).
    rows = (query * scale).reshape(kv_heads, groups * q_len, head_dim)
    scores = torch.bmm(rows, key.reshape(kv_heads, kv_len, head_dim).transpose(1, 2))
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    if attention_mask.shape[-1] != kv_len:
        attention_mask = attention_mask[:, :, :, :kv_len]
    scores = scores.view(kv_heads, groups, q_len, kv_len) + attention_mask
    probs = torch.softmax(scores, dim=-1).view(kv_heads, groups * q_len, kv_len)
    output = torch.bmm(probs, value.reshape(kv_heads, kv_len, value.shape[-1]))
    return output.view(1, heads, q_len, value.shape[-1]).transpose(1, 2).contiguous(), None


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(IMPLEMENTATION, grouped_attention)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)


def use_grouped_attention(model: nn.Module) -> None:
    """Switches `model` (a transformers PreTrainedModel) to grouped_attention."""
    _register()
    model.set_attn_implementation(IMPLEMENTATION)
