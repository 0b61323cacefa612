"""Grouped attention over the static cache, read where it lives.

transformers' "sdpa" attention under torch.export becomes SDPA's math decomposition:
grouped-query models repeat every layer's whole cache to the query heads (a portable
`expand_copy` and an XNNPACK copy of max_seq_len positions, twice per layer and step),
and guard fully masked rows with portable `logical_not` / `any` / `where`. On a
SmolLM2-135M-sized Llama that was a third of a decode step, and each portable operator
cut the XNNPACK delegate in two.

`grouped_attention` is the same arithmetic on the cache as it is: the query heads that
share a key/value head become rows of one matrix (q [1, H, T, d] -> [KV, G*T, d]), and
one pteforge::cached_attention call (pteforge/lower/attention_op.py; its kernel,
cc/kernels/attention.h, the one encoder-decoders' steps use) attends over each layer's
cache where it lives, reading each key and value vector once for the rows and skipping
the positions the mask excludes: a step at position p reads p + 1 of the max_seq_len
positions. (As two XNNPACK batched matmuls, the form before 2026-12-01, XNNPACK copied
both cache buffers of every layer into its own tensors on every step, the right-hand
operand of a matmul that is not a constant: 47 MB a token for SmolLM2-135M at
max_seq_len 1024, 22% of an int8 decode step in memmove, on one thread whatever the
thread count.) The mask is transformers' additive float mask (`eager_mask`, made once
per step and shared by the layers): a masked position holds the dtype's lowest value,
never -inf, so no row is ever all -inf and needs no guard. Soft-capped scores (Gemma 2)
and values of another size than the keys keep the matmul form, which XNNPACK runs whole.

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
from pteforge.lower import attention_op  # noqa: F401  (defines torch.ops.pteforge.cached_attention)

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
    if attention_mask.shape[-1] != kv_len:
        attention_mask = attention_mask[:, :, :, :kv_len]
    if softcap is None and value.shape[-1] == head_dim:  # the operator's keys and values are alike
        return _cached_attention(query, key, value, attention_mask, scale), None
    # Query heads h = k * groups + g use key/value head k (transformers' repeat_kv).
    rows = (query * scale).reshape(kv_heads, groups * q_len, head_dim)
    scores = torch.bmm(rows, key.reshape(kv_heads, kv_len, head_dim).transpose(1, 2))
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    scores = scores.view(kv_heads, groups, q_len, kv_len) + attention_mask
    probs = torch.softmax(scores, dim=-1).view(kv_heads, groups * q_len, kv_len)
    output = torch.bmm(probs, value.reshape(kv_heads, kv_len, value.shape[-1]))
    return output.view(1, heads, q_len, value.shape[-1]).transpose(1, 2).contiguous(), None


def _cached_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor,
                      scale: float) -> torch.Tensor:
    """grouped_attention through pteforge::cached_attention: query [1, H, T, d], key and
    value [1, KV, S, d] (the cache as it is), mask [1, 1, T, S]; returns [1, T, H, dv].
    The operator's rows are the query heads that share a key/value head, by position:
    row g * T + t is head k * G + g at position t for every key/value head k, so each
    sees mask row t (the operator's rows r and r + T share a mask row: no copy of the
    mask per group, which at max_seq_len positions would be a large one per layer)."""
    _, heads, q_len, head_dim = query.shape
    kv_heads, kv_len = key.shape[1], key.shape[2]
    groups = heads // kv_heads
    rows = query.reshape(kv_heads, groups * q_len, head_dim).transpose(0, 1)  # [G*T, KV, d]
    output = torch.ops.pteforge.cached_attention(rows, key.reshape(-1, head_dim), value.reshape(-1, value.shape[-1]),
                                                 mask.reshape(q_len, kv_len), None, scale)  # [G*T, KV, dv]
    return output.view(groups, q_len, kv_heads, -1).permute(1, 2, 0, 3).reshape(1, q_len, heads, -1)


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(IMPLEMENTATION, grouped_attention)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)


def use_grouped_attention(model: nn.Module) -> None:
    """Switches `model` (a transformers PreTrainedModel) to grouped_attention."""
    _register()
    model.set_attn_implementation(IMPLEMENTATION)
