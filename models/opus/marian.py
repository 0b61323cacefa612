"""A Hugging Face MarianMTModel as three entry points sharing a KV cache.

  encode(input_ids [b, S], attention_mask [b, S], rows [n])
      runs the encoder once per sentence and stores each decoder layer's
      cross-attention keys and values, for n decoder rows (rows[i] = the sentence of
      row i: with beam search every beam of a sentence gets its own row). Returns the
      number of rows.
  decode_step(tokens [n, 1], encoder_attention_mask [n, S], decoder_attention_mask [n, T])
      one decoder step at position T - 1: appends the step's self-attention keys and
      values to the cache, attends to the cached positions 0..T-1 and to the stored
      cross-attention keys/values, and returns next-token log-probabilities [n, vocab]
      (with the bad-words token removed and renormalized, as Marian's generation config
      asks of Hugging Face generate).
  reorder_cache(beam_rows [n])
      row i of the self-attention cache becomes row beam_rows[i] (beam search). The
      cross-attention rows need no reordering: beams only move within their sentence,
      whose rows hold the same encoder states.

Batch (rows) and lengths are dynamic up to the limits the cache is built with. Shapes
carry the lengths (S, T), so no step counter is needed in the state. The arithmetic
follows transformers' eager attention (matmul, scale, additive mask, softmax), reusing
the model's own submodules, so results match `generate` to float rounding.
"""

from __future__ import annotations

import torch
from torch import nn

# transformers' additive attention mask value (torch.finfo(float32).min).
_MASKED = torch.finfo(torch.float32).min


class LayerCache(nn.Module):
    """One decoder layer's cache: [rows, heads, positions, head_dim] each."""

    def __init__(self, rows: int, heads: int, max_source: int, max_target: int, head_dim: int):
        super().__init__()
        self.register_buffer("self_key", torch.zeros(rows, heads, max_target, head_dim))
        self.register_buffer("self_value", torch.zeros(rows, heads, max_target, head_dim))
        self.register_buffer("cross_key", torch.zeros(rows, heads, max_source, head_dim))
        self.register_buffer("cross_value", torch.zeros(rows, heads, max_source, head_dim))


class StatefulMarian(nn.Module):
    """encode / decode_step / reorder_cache over one shared cache (see module docstring).

    Args:
      model: a transformers MarianMTModel (eval mode, eager attention).
      max_rows: most decoder rows at once (sentences x beams).
      max_source: longest source, in tokens (</s> included).
      max_target: most decoder positions (the start token included).
      bad_token: a token never to generate (Marian: the pad token), or None.
      renormalize: renormalize log-probabilities after removing bad_token, as
        generate does with renormalize_logits=True.
    """

    def __init__(
        self,
        model: nn.Module,
        max_rows: int,
        max_source: int,
        max_target: int,
        bad_token: int | None,
        renormalize: bool,
    ):
        super().__init__()
        config = model.config
        if max(max_source, max_target) > config.max_position_embeddings:
            raise ValueError(
                f"max_source={max_source} and max_target={max_target} must not exceed the "
                f"model's max_position_embeddings={config.max_position_embeddings}"
            )
        self.model = model
        self.max_rows = max_rows
        self.heads = config.decoder_attention_heads
        self.head_dim = config.d_model // self.heads
        self.max_source = max_source
        self.bad_token = bad_token
        self.renormalize = renormalize
        self.cache = nn.ModuleList(
            LayerCache(max_rows, self.heads, max_source, max_target, self.head_dim)
            for _ in range(config.decoder_layers)
        )

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """[n, t, d_model] -> [n, heads, t, head_dim]"""
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_dim).transpose(1, 2)

    def _full_width(self, states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """[n, heads, length, head_dim] zero-padded to max_source positions.

        Scattered into static zeros rather than concatenated with zeros of size
        max_source - length: ExecuTorch bounds a shape by substituting each dynamic
        dimension's maximum, which gives a decreasing expression the bound 0."""
        full = states.new_zeros(states.shape[0], self.heads, self.max_source, self.head_dim)
        return full.index_copy(2, positions, states)

    @staticmethod
    def _attend(query, key, value, scaling: float, mask) -> torch.Tensor:
        weights = torch.matmul(query, key.transpose(2, 3)) * scaling + mask
        out = torch.matmul(torch.softmax(weights, dim=-1), value)
        return out.transpose(1, 2).reshape(out.shape[0], out.shape[2], -1)

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        encoded = self.model.model.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        encoded = encoded.index_select(0, rows)
        n, length = encoded.shape[0], encoded.shape[1]
        all_rows = torch.arange(n)
        # Written over the full cache width, rows selected by a 1-D index: a dynamic-size
        # slice write up to the full width does not export (FINDINGS.md), and a 1-D
        # index_put_ is what ExecuTorch's in-place kernel supports (no cache copy).
        positions = torch.arange(length)
        for layer, cache in zip(self.model.model.decoder.layers, self.cache):
            attention = layer.encoder_attn
            key = self._full_width(self._split_heads(attention.k_proj(encoded)), positions)
            value = self._full_width(self._split_heads(attention.v_proj(encoded)), positions)
            cache.cross_key.index_put_((all_rows,), key)
            cache.cross_value.index_put_((all_rows,), value)
        return torch.full((1,), n, dtype=torch.int64)

    def decode_step(
        self,
        tokens: torch.Tensor,
        encoder_attention_mask: torch.Tensor,
        decoder_attention_mask: torch.Tensor,
    ) -> torch.Tensor:
        decoder = self.model.model.decoder
        n = tokens.shape[0]
        source_length = encoder_attention_mask.shape[1]
        length = decoder_attention_mask.shape[1]
        position = length - 1
        hidden = decoder.embed_tokens(tokens) * decoder.embed_scale
        hidden = hidden + decoder.embed_positions.weight.narrow(0, position, 1)
        at_position = torch.arange(position, position + 1)
        rows = torch.arange(n)
        # The step's keys and values are written for every cache row (rows past n get
        # zeros, which no sentence reads) with one 1-D index on the position axis: the
        # form ExecuTorch's in-place index_put_ kernel supports, so the cache is not copied.
        all_rows = torch.zeros(self.max_rows, self.heads, 1, self.head_dim)
        # Reads of the cache gather positions with index_select: a dynamic slice that can
        # reach the full cache length does not export either.
        target_positions = torch.arange(length)
        source_positions = torch.arange(source_length)
        self_mask = (1.0 - decoder_attention_mask[:, None, None, :].to(torch.float32)) * _MASKED
        cross_mask = (1.0 - encoder_attention_mask[:, None, None, :].to(torch.float32)) * _MASKED
        for layer, cache in zip(decoder.layers, self.cache):
            attention = layer.self_attn
            query = self._split_heads(attention.q_proj(hidden))
            key = self._split_heads(attention.k_proj(hidden))
            value = self._split_heads(attention.v_proj(hidden))
            cache.self_key[:, :, at_position] = all_rows.index_copy(0, rows, key)
            cache.self_value[:, :, at_position] = all_rows.index_copy(0, rows, value)
            keys = cache.self_key[:n].index_select(2, target_positions)
            values = cache.self_value[:n].index_select(2, target_positions)
            out = self._attend(query, keys, values, attention.scaling, self_mask)
            hidden = layer.self_attn_layer_norm(hidden + attention.out_proj(out))

            attention = layer.encoder_attn
            query = self._split_heads(attention.q_proj(hidden))
            keys = cache.cross_key[:n].index_select(2, source_positions)
            values = cache.cross_value[:n].index_select(2, source_positions)
            out = self._attend(query, keys, values, attention.scaling, cross_mask)
            hidden = layer.encoder_attn_layer_norm(hidden + attention.out_proj(out))

            hidden = layer.final_layer_norm(hidden + layer.fc2(layer.activation_fn(layer.fc1(hidden))))
        logits = self.model.lm_head(hidden[:, 0]) + self.model.final_logits_bias
        log_probs = torch.log_softmax(logits, dim=-1)
        if self.bad_token is not None:
            log_probs = log_probs.index_fill(1, torch.tensor([self.bad_token]), float("-inf"))
            if self.renormalize:
                log_probs = torch.log_softmax(log_probs, dim=-1)
        return log_probs

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:
        rows = torch.arange(beam_rows.shape[0])
        for cache in self.cache:
            cache.self_key.index_put_((rows,), cache.self_key.index_select(0, beam_rows))
            cache.self_value.index_put_((rows,), cache.self_value.index_select(0, beam_rows))
        return torch.full((1,), beam_rows.shape[0], dtype=torch.int64)
