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
    """One decoder layer's cache, each buffer [rows * heads * positions, head_dim]: the
    (row, head, position) vectors flattened, so that one 1-D index reads or writes any
    set of them (see StatefulMarian._cache_index)."""

    def __init__(self, rows: int, heads: int, max_source: int, max_target: int, head_dim: int, cross: bool):
        super().__init__()
        self.register_buffer("self_key", torch.zeros(rows * heads * max_target, head_dim))
        self.register_buffer("self_value", torch.zeros(rows * heads * max_target, head_dim))
        if cross:
            self.register_buffer("cross_key", torch.zeros(rows * heads * max_source, head_dim))
            self.register_buffer("cross_value", torch.zeros(rows * heads * max_source, head_dim))


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
      recompute_cross_attention: store the encoder output instead of each layer's
        cross-attention keys/values, and recompute those at every step (the design of
        optimum-executorch's exports; kept to measure what caching saves).
    """

    def __init__(
        self,
        model: nn.Module,
        max_rows: int,
        max_source: int,
        max_target: int,
        bad_token: int | None,
        renormalize: bool,
        recompute_cross_attention: bool = False,
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
        self.max_target = max_target
        self.bad_token = bad_token
        self.renormalize = renormalize
        self.recompute_cross_attention = recompute_cross_attention
        self.cache = nn.ModuleList(
            LayerCache(max_rows, self.heads, max_source, max_target, self.head_dim, not recompute_cross_attention)
            for _ in range(config.decoder_layers)
        )
        if recompute_cross_attention:
            self.register_buffer("encoder_states", torch.zeros(max_rows, max_source, config.d_model))

    def _cache_index(self, rows: torch.Tensor, positions: torch.Tensor, width: int) -> torch.Tensor:
        """Indices of the (row, head, position) vectors of a flattened cache `width`
        positions wide, in [rows, heads, positions] order.

        One index_select with these reads a cache in the [rows * heads, positions,
        head_dim] layout batched matmul wants, and one index_put_ writes it: a single
        copy of what is used, where slicing rows and gathering positions copied the
        cache twice (once at full width), and the 1-D index is the form ExecuTorch's
        in-place index_put_ kernel supports."""
        heads = torch.arange(self.heads)
        index = (rows[:, None, None] * self.heads + heads[None, :, None]) * width + positions[None, None, :]
        return index.reshape(-1)

    def _heads_first(self, x: torch.Tensor) -> torch.Tensor:
        """[n, t, heads * head_dim] -> [n * heads, t, head_dim]"""
        n, t = x.shape[0], x.shape[1]
        return x.view(n, t, self.heads, self.head_dim).transpose(1, 2).reshape(n * self.heads, t, self.head_dim)

    def _full_width(self, states: torch.Tensor, positions: torch.Tensor, dim: int = 2) -> torch.Tensor:
        """`states` zero-padded to max_source positions along `dim`.

        Scattered into static zeros rather than concatenated with zeros of size
        max_source - length: ExecuTorch bounds a shape by substituting each dynamic
        dimension's maximum, which gives a decreasing expression the bound 0."""
        shape = list(states.shape)
        shape[dim] = self.max_source
        return states.new_zeros(shape).index_copy(dim, positions, states)

    def _attend(self, query, keys, values, scaling: float, mask) -> torch.Tensor:
        """One step's attention with transformers' eager arithmetic (matmul, scale,
        additive mask, softmax, matmul) as 3-D batched matmuls over rows x heads.

        query [n, 1, d_model]; keys, values [n * heads, L, head_dim]; mask [n, 1, 1, L].
        A step's query has one position, so its [n * heads, 1, head_dim] view needs no
        transpose; 4-D matmuls would add a broadcast copy of the keys and values."""
        n, length = query.shape[0], keys.shape[1]
        query = query.view(n * self.heads, 1, self.head_dim)
        weights = (torch.bmm(query, keys.transpose(1, 2)) * scaling).view(n, self.heads, 1, length) + mask
        probs = torch.softmax(weights, dim=-1).view(n * self.heads, 1, length)
        return torch.bmm(probs, values).view(n, 1, self.heads * self.head_dim)

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        encoded = self.model.model.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        encoded = encoded.index_select(0, rows)
        n, length = encoded.shape[0], encoded.shape[1]
        all_rows = torch.arange(n)
        # Rows selected by a 1-D index: a dynamic-size slice write up to the full width
        # does not export (FINDINGS.md), and a 1-D index_put_ is what ExecuTorch's
        # in-place kernel supports (no cache copy).
        positions = torch.arange(length)
        if self.recompute_cross_attention:
            self.encoder_states.index_put_((all_rows,), self._full_width(encoded, positions, dim=1))
            return torch.full((1,), n, dtype=torch.int64)
        # Positions past the source keep older values; steps read only 0..length-1.
        index = self._cache_index(all_rows, positions, self.max_source)
        for layer, cache in zip(self.model.model.decoder.layers, self.cache):
            attention = layer.encoder_attn
            cache.cross_key.index_put_((index,), self._heads_first(attention.k_proj(encoded)).reshape(-1, self.head_dim))
            cache.cross_value.index_put_((index,), self._heads_first(attention.v_proj(encoded)).reshape(-1, self.head_dim))
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
        rows = torch.arange(n)
        # The step's keys and values go in place at position T - 1; reads gather
        # positions 0..T-1 (and the source's) with one index_select each: a dynamic
        # slice that can reach the full cache length does not export.
        write_self = self._cache_index(rows, torch.arange(position, position + 1), self.max_target)
        read_self = self._cache_index(rows, torch.arange(length), self.max_target)
        read_cross = self._cache_index(rows, torch.arange(source_length), self.max_source)
        heads_first = (n * self.heads, -1, self.head_dim)
        self_mask = (1.0 - decoder_attention_mask[:, None, None, :].to(torch.float32)) * _MASKED
        cross_mask = (1.0 - encoder_attention_mask[:, None, None, :].to(torch.float32)) * _MASKED
        for layer, cache in zip(decoder.layers, self.cache):
            attention = layer.self_attn
            cache.self_key.index_put_((write_self,), attention.k_proj(hidden).view(-1, self.head_dim))
            cache.self_value.index_put_((write_self,), attention.v_proj(hidden).view(-1, self.head_dim))
            keys = cache.self_key.index_select(0, read_self).view(heads_first)
            values = cache.self_value.index_select(0, read_self).view(heads_first)
            out = self._attend(attention.q_proj(hidden), keys, values, attention.scaling, self_mask)
            hidden = layer.self_attn_layer_norm(hidden + attention.out_proj(out))

            attention = layer.encoder_attn
            if self.recompute_cross_attention:
                encoded = self.encoder_states[:n].index_select(1, torch.arange(source_length))
                keys = self._heads_first(attention.k_proj(encoded))
                values = self._heads_first(attention.v_proj(encoded))
            else:
                keys = cache.cross_key.index_select(0, read_cross).view(heads_first)
                values = cache.cross_value.index_select(0, read_cross).view(heads_first)
            out = self._attend(attention.q_proj(hidden), keys, values, attention.scaling, cross_mask)
            hidden = layer.encoder_attn_layer_norm(hidden + attention.out_proj(out))

            hidden = layer.final_layer_norm(hidden + layer.fc2(layer.activation_fn(layer.fc1(hidden))))
        logits = self.model.lm_head(hidden[:, 0]) + self.model.final_logits_bias
        if self.bad_token is not None and self.renormalize:
            # generate's log_softmax, bad-token removal and renormalization in one
            # log_softmax (equal up to rounding): a vocabulary-wide log_softmax is a
            # portable kernel costing ~0.8 ms per step on the full model.
            return torch.log_softmax(logits.index_fill(1, torch.tensor([self.bad_token]), float("-inf")), dim=-1)
        log_probs = torch.log_softmax(logits, dim=-1)
        if self.bad_token is not None:
            log_probs = log_probs.index_fill(1, torch.tensor([self.bad_token]), float("-inf"))
        return log_probs

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(self.max_target)
        source = self._cache_index(beam_rows, positions, self.max_target)
        target = self._cache_index(torch.arange(beam_rows.shape[0]), positions, self.max_target)
        for cache in self.cache:
            cache.self_key.index_put_((target,), cache.self_key.index_select(0, source))
            cache.self_value.index_put_((target,), cache.self_value.index_select(0, source))
        return torch.full((1,), beam_rows.shape[0], dtype=torch.int64)
