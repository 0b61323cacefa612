"""The decoder's attention over the cache where it lives.

A decode step reads every layer's keys and values from the state buffers of
Seq2SeqWithCache (cache.py) without copying them out: each buffer is laid out
[heads, slots, positions, head_dim] (a slot is a decoder row of the self-attention
cache, or a source of the cross-attention cache), and the step's n query rows, beams
included, attend over the whole buffer, viewed as [heads, slots * positions, head_dim],
in one pteforge::cached_attention call (pteforge/lower/attention_op.py; its kernel,
cc/kernels/attention.h, reads each key and value vector once for all rows):

    scores = (query * scale) [H, n, d] @ keys^T [H, d, slots * positions]
    probs  = softmax(scores + position bias + mask)
    output = probs [H, n, slots * positions] @ values [H, slots * positions, d]

(As XNNPACK batched matmuls, the same arithmetic copied the buffers on every step:
XNNPACK packs a matmul's right-hand operand on every call when it is not a constant.)
The additive mask (made once per step, cache.py) gives each row its own slot's valid
positions: its self-attention row up to the step, its source's tokens; the kernel
skips the positions it excludes. So a source's cross-attention keys are stored once and
read by all of its beams (CTranslate2 folds beams into the query rows the same way),
and nothing is gathered or broadcast.

`use_cached_attention(model)` switches the model to this function and marks its
decoder's attention modules with the cache they read. The masks travel in the model's
keyword arguments (MASKS), which transformers hands to every attention call. Other
attention calls (the encoder's, in encode) compute what the families' eager attention
computes, with the batch and heads folded into one batch of 3-D matmuls: its 4-D
matmuls broadcast both operands first, a copy of the scores per layer (54 MB for a
30-s Whisper window) that XNNPACK does not take.
"""

from __future__ import annotations

import torch
from torch import nn

from pteforge.seq2seq import alignment
from pteforge.lower import attention_op  # noqa: F401  (defines torch.ops.pteforge.cached_attention)

IMPLEMENTATION = "pteforge_seq2seq_cache"
# The keyword argument carrying the step's masks: {"self": [n, slots * positions] or
# None, "cross": ...}, additive (0 or the dtype's lowest value); an align pass adds
# alignment.SCORES.
MASKS = "pteforge_cache_masks"
# Set on a decoder attention module: which of MASKS it reads ("self" or "cross").
_KIND = "_pteforge_cache_kind"


def cached_attention(module: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                     attention_mask: torch.Tensor | None, scaling: float | None = None, dropout: float = 0.0,
                     position_bias: torch.Tensor | None = None, **kwargs) -> tuple[torch.Tensor, None]:
    """transformers' attention-function signature. For a marked decoder module: query
    [n, H, q, d] (q > 1: a prefill), key and value [H, slots, positions, d] (the cache's
    view), T5's position_bias [1, H, 1, positions] (per slot); returns ([n, q, H, d], None).
    Otherwise query [b, H, q, d], key and value [b, H, k, d], an additive mask and
    position bias that broadcast to [b, H, q, k]; returns ([b, q, H, d], None)."""
    masks = kwargs.pop(MASKS, None)
    kind = getattr(module, _KIND, None)
    if dropout and module.training:
        raise ValueError("pteforge.seq2seq's attention is for inference (the module is in training mode)")
    if kind is None or masks is None:
        return _batched_attention(query, key, value, attention_mask, scaling, position_bias), None
    heads, slots, positions, head_dim = key.shape
    rows, new = query.shape[0], query.shape[2]
    scale = head_dim ** -0.5 if scaling is None else scaling
    bias = None if position_bias is None else position_bias.reshape(heads, positions)
    # Several query positions (a prefill): each is a query row of its own, with its own
    # mask row (cache.py's _prefill_masks).
    queries = query.reshape(rows, heads, head_dim) if new == 1 else query.transpose(1, 2).reshape(-1, heads, head_dim)
    output = torch.ops.pteforge.cached_attention(queries, key.reshape(-1, head_dim),
                                                 value.reshape(-1, value.shape[-1]), masks[kind], bias, scale)
    collector = masks.get(alignment.SCORES) if kind == "cross" else None
    if collector is not None:  # an align pass (alignment.py)
        collector.add(module, query, key, scale)
    return output.view(rows, new, heads, value.shape[-1]), None


def _batched_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None,
                       scaling: float | None, position_bias: torch.Tensor | None) -> torch.Tensor:
    """Eager attention (transformers' eager_attention_forward, T5's position bias
    included) as 3-D matmuls over batch x heads."""
    batch, heads, queries, head_dim = query.shape
    keys = key.shape[2]
    scale = head_dim ** -0.5 if scaling is None else scaling
    if scale != 1.0:
        query = query * scale
    scores = torch.bmm(query.reshape(batch * heads, queries, head_dim),
                       key.reshape(batch * heads, keys, head_dim).transpose(1, 2)).view(batch, heads, queries, keys)
    if position_bias is not None:
        scores = scores + position_bias
    if mask is not None:
        scores = scores + mask
    probs = torch.softmax(scores, dim=-1).view(batch * heads, queries, keys)
    output = torch.bmm(probs, value.reshape(batch * heads, keys, value.shape[-1]))
    return torch.permute_copy(output.view(batch, heads, queries, value.shape[-1]), (0, 2, 1, 3))


def use_cached_attention(model: nn.Module, self_attentions, cross_attentions) -> None:
    """Switches `model` (a transformers PreTrainedModel) to cached_attention and marks
    its decoder's self- and cross-attention modules (families.decoder_layers)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(IMPLEMENTATION, cached_attention)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)
    model.set_attn_implementation(IMPLEMENTATION)
    for kind, modules in (("self", self_attentions), ("cross", cross_attentions)):
        for module in modules:
            setattr(module, _KIND, kind)
