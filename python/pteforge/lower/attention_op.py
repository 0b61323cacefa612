"""pteforge::cached_attention: a decode step's attention over a cache buffer, in place.

    cached_attention(query [n, H, d], keys [H * W, d], values [H * W, d],
                     mask [m, W]?, position_bias [H, P]?, scale) -> [n, H, d]

For each row r and head h (keys and values viewed [H, W, d]):
    scores = (query[r, h] * scale) @ keys[h]^T + position_bias[h, w % P] + mask[r % m, w]
    out[r, h] = softmax(scores) @ values[h]

(m divides n: rows r and r + m share a mask row, as a causal LM's query heads that
share a key/value head see the same positions; encoder-decoders give every row its own.)

What attention.py's XNNPACK form computes, as one operator whose kernel
(cc/kernels/attention.h) reads each key and value vector once where the cache holds
it and skips the positions a row's mask excludes. XNNPACK's batched matmul packs its
right-hand operand on every call when it is not a constant, so that form copied every
buffer a step attends over (Whisper-tiny's cross-attention: 18 MB a step) before
reading it. The eager definition below is the reference the exporter's conformance
check compares the kernel with; both run in float32.

Import this module before tracing or running a module that calls the operator
(attention.py does).
"""

from __future__ import annotations

import torch

from pteforge.support import custom_ops

NAMESPACE = "pteforge"
NAME = "cached_attention"
SCHEMA = ("cached_attention(Tensor query, Tensor keys, Tensor values, Tensor? mask, Tensor? position_bias, "
          "float scale) -> Tensor")

# A fragment: pteforge.cortex_m.ops defines the namespace's other operators.
_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def cached_attention_reference(query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                               mask: torch.Tensor | None, position_bias: torch.Tensor | None,
                               scale: float) -> torch.Tensor:
    """pteforge::cached_attention in eager PyTorch (see the module docstring)."""
    rows, heads, dim = query.shape
    width = keys.shape[0] // heads
    scores = torch.bmm((query * scale).transpose(0, 1), keys.view(heads, width, dim).transpose(1, 2))
    if position_bias is not None:
        positions = position_bias.shape[-1]
        scores = (scores.view(heads, rows, width // positions, positions)
                  + position_bias.view(heads, 1, 1, positions)).view(heads, rows, width)
    if mask is not None:
        scores = scores + mask.repeat(rows // mask.shape[0], 1).view(1, rows, width)
    probs = torch.softmax(scores, dim=-1)
    return torch.bmm(probs, values.view(heads, width, dim)).transpose(0, 1).contiguous()


# How a program names the operator (namespace::name.overload).
PROGRAM_OPERATOR = custom_ops.define(_library, NAME, SCHEMA, cached_attention_reference,
                                     lambda query, *rest: query.new_empty(query.shape))
