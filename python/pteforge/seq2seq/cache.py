"""Seq2SeqWithCache: a transformers encoder-decoder as encode / decode_step /
reorder_cache over one shared cache, the module pteforge.seq2seq exports.

    encode(input_ids [b, S], attention_mask [b, S], rows [n]) -> int64[1]   (text)
    encode(input_features [b, mel, frames], rows [n]) -> int64[1]           (Whisper)
        runs the encoder once per source and writes every decoder layer's
        cross-attention keys and values for n decoder rows (rows[i] = the source of row
        i: beams of one source share it). Returns n.
    decode_step(tokens [n, 1], encoder_attention_mask [n, S], decoder_attention_mask [n, T])
    decode_step(tokens [n, 1], decoder_attention_mask [n, T])               (Whisper)
        one decoder step at position T - 1 through the model's own forward: appends the
        step's self-attention keys and values and returns log-probabilities [n, vocab].
    reorder_cache(beam_rows [n]) -> int64[1]
        row i of the self-attention cache becomes row beam_rows[i] (beam search; beams
        move within their source, whose cross-attention rows are the same).

The cache is registered buffers (state shared by the three methods); the model sees it
through transformers' EncoderDecoderCache whose layers (CacheLayer, made on first use)
read and write those buffers. Cross-attention layers are marked as already computed,
so the model reads them and never projects the encoder output again. Shapes carry the
lengths S and T: no step counter in the state.

Each buffer is [rows * heads * positions, head_dim], the (row, head, position) vectors
flattened, so that one 1-D index reads or writes any set of them: the form ExecuTorch's
in-place index_put_ kernel supports, and a single copy of what a step reads.
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from pteforge.seq2seq import families

# transformers' additive attention-mask value (torch.finfo(float32).min).
_MASKED = torch.finfo(torch.float32).min


@functools.cache
def _layer_classes():
    """The cache-layer classes, defined on first use (importing pteforge.seq2seq does
    not import transformers)."""
    from transformers.cache_utils import CacheLayerMixin

    class SelfAttentionLayer(CacheLayerMixin):
        """A decoder layer's self-attention cache for one step at position T - 1: update()
        writes the step's keys and values there and returns positions 0..T-1."""

        is_compileable = True  # transformers then never drops a mask for one query
        is_sliding = False

        def __init__(self, owner: "Seq2SeqWithCache", keys: torch.Tensor, values: torch.Tensor,
                     rows: int, length: int):
            super().__init__()
            self.owner, self.flat_keys, self.flat_values = owner, keys, values
            self.rows, self.length = rows, length
            self.is_initialized = True

        def lazy_initialization(self, key_states, value_states):
            pass

        def update(self, key_states, value_states, *args, **kwargs):
            owner, rows = self.owner, torch.arange(self.rows)
            write = owner.index(rows, torch.arange(self.length - 1, self.length), owner.max_target)
            read = owner.index(rows, torch.arange(self.length), owner.max_target)
            self.flat_keys.index_put_((write,), key_states.reshape(-1, owner.head_dim))
            self.flat_values.index_put_((write,), value_states.reshape(-1, owner.head_dim))
            shape = (self.rows, owner.heads, self.length, owner.head_dim)
            self.keys = self.flat_keys.index_select(0, read).view(shape)
            self.values = self.flat_values.index_select(0, read).view(shape)
            return self.keys, self.values

        def get_seq_length(self):
            return self.length - 1  # the positions before this step's

        def get_mask_sizes(self, query_length):
            return self.length, 0

        def get_max_length(self):
            return self.owner.max_target

    class CrossAttentionLayer(CacheLayerMixin):
        """A decoder layer's cross-attention keys and values, written by encode."""

        is_compileable = True
        is_sliding = False

        def __init__(self, keys: torch.Tensor, values: torch.Tensor):
            super().__init__()
            self.keys, self.values = keys, values
            self.is_initialized = True

        def lazy_initialization(self, key_states, value_states):
            pass

        def update(self, key_states, value_states, *args, **kwargs):
            raise AssertionError("cross-attention keys and values are written by encode only")

        def get_seq_length(self):
            return self.keys.shape[2]

        def get_mask_sizes(self, query_length):
            return self.keys.shape[2], 0

        def get_max_length(self):
            return self.keys.shape[2]

    return SelfAttentionLayer, CrossAttentionLayer


class LayerCache(nn.Module):
    """One decoder layer's buffers (see the module docstring for the layout)."""

    def __init__(self, rows: int, heads: int, max_source: int, max_target: int, head_dim: int):
        super().__init__()
        self.register_buffer("self_key", torch.zeros(rows * heads * max_target, head_dim))
        self.register_buffer("self_value", torch.zeros(rows * heads * max_target, head_dim))
        self.register_buffer("cross_key", torch.zeros(rows * heads * max_source, head_dim))
        self.register_buffer("cross_value", torch.zeros(rows * heads * max_source, head_dim))


class Seq2SeqWithCache(nn.Module):
    """`model` with encode / decode_step / reorder_cache (module docstring). `model` is
    switched to transformers' eager attention (matmul, additive mask, softmax: what
    lowers to XNNPACK whole); pass a copy to keep the original as it was.

    Args:
      model: a transformers encoder-decoder of a family in families.SUPPORTED, eval mode.
      max_rows: most decoder rows at once (sources x beams).
      max_source: longest source in tokens (Whisper: fixed by the model).
      max_target: most decoder positions, the start token included.
    """

    def __init__(self, model: nn.Module, max_rows: int, max_source: int, max_target: int):
        super().__init__()
        families.check_supported(model)
        model.set_attn_implementation("eager")
        shape = families.geometry(model)
        self.model = model
        self.max_rows, self.max_source, self.max_target = max_rows, max_source, max_target
        self.heads, self.head_dim = shape.heads, shape.head_dim
        self.hidden = families.hidden_size(model)
        # Made here, not in the traced methods (torch.export cannot trace a class statement).
        self._layer_types = _layer_classes()
        self.cache = nn.ModuleList(
            LayerCache(max_rows, shape.heads, max_source, max_target, shape.head_dim) for _ in range(shape.layers))
        self.train(False)

    def index(self, rows: torch.Tensor, positions: torch.Tensor, width: int) -> torch.Tensor:
        """Indices of the (row, head, position) vectors of a cache `width` positions
        wide, in [rows, heads, positions] order."""
        heads = torch.arange(self.heads)
        index = (rows[:, None, None] * self.heads + heads[None, :, None]) * width + positions[None, None, :]
        return index.reshape(-1)

    def _heads_first(self, x: torch.Tensor) -> torch.Tensor:
        """[n, s, heads * head_dim] -> [n * heads * s, head_dim] in (row, head, position) order."""
        n, s = x.shape[0], x.shape[1]
        return x.view(n, s, self.heads, self.head_dim).transpose(1, 2).reshape(-1, self.head_dim)

    def _encode(self, encoded: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        encoded = encoded.index_select(0, rows)
        n, length = encoded.shape[0], encoded.shape[1]
        # Positions past the source keep older values; steps read only 0..S-1.
        index = self.index(torch.arange(n), torch.arange(length), self.max_source)
        for projection, cache in zip(families.cross_projections(self.model), self.cache):
            cache.cross_key.index_put_((index,), self._heads_first(projection.key(encoded)))
            cache.cross_value.index_put_((index,), self._heads_first(projection.value(encoded)))
        return torch.full((1,), n, dtype=torch.int64)

    def _step(self, tokens: torch.Tensor, source_mask: torch.Tensor | None,
              decoder_mask: torch.Tensor) -> torch.Tensor:
        """One step through the model's own forward over the cache (source_mask None:
        Whisper, whose source is always max_source positions)."""
        from transformers.cache_utils import Cache, EncoderDecoderCache
        from transformers.modeling_outputs import BaseModelOutput

        SelfAttentionLayer, CrossAttentionLayer = self._layer_types
        n, length = tokens.shape[0], decoder_mask.shape[1]
        source = self.max_source if source_mask is None else source_mask.shape[1]
        read_cross = self.index(torch.arange(n), torch.arange(source), self.max_source)
        cross_shape = (n, self.heads, source, self.head_dim)
        self_layers = [SelfAttentionLayer(self, c.self_key, c.self_value, n, length) for c in self.cache]
        cross_layers = [CrossAttentionLayer(c.cross_key.index_select(0, read_cross).view(cross_shape),
                                            c.cross_value.index_select(0, read_cross).view(cross_shape))
                        for c in self.cache]
        cache = EncoderDecoderCache(Cache(layers=self_layers), Cache(layers=cross_layers))
        cache.is_updated = {layer: True for layer in range(len(self.cache))}
        arguments = dict(
            decoder_input_ids=tokens,
            decoder_attention_mask=_additive(decoder_mask),
            past_key_values=cache,
            # Only its presence matters: the cross-attention keys and values are cached.
            encoder_outputs=BaseModelOutput(last_hidden_state=torch.zeros(n, 1, self.hidden)),
            use_cache=True,
        )
        if source_mask is not None:
            arguments["attention_mask"] = _additive(source_mask)
        logits = self.model(**arguments).logits
        return torch.log_softmax(logits[:, -1], dim=-1)

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(self.max_target)
        source = self.index(beam_rows, positions, self.max_target)
        target = self.index(torch.arange(beam_rows.shape[0]), positions, self.max_target)
        for cache in self.cache:
            cache.self_key.index_put_((target,), cache.self_key.index_select(0, source))
            cache.self_value.index_put_((target,), cache.self_value.index_select(0, source))
        return torch.full((1,), beam_rows.shape[0], dtype=torch.int64)


def _additive(mask: torch.Tensor) -> torch.Tensor:
    """A [n, L] 0/1 mask as transformers' 4-D additive one [n, 1, 1, L] (passed through
    as it is by its mask helpers)."""
    return ((1.0 - mask[:, None, None, :].to(torch.float32)) * _MASKED)


class TextSeq2SeqWithCache(Seq2SeqWithCache):
    """A text-to-text model (T5, BART, Marian, M2M100, ...)."""

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        encoder = self.model.get_encoder()
        return self._encode(encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state, rows)

    def decode_step(self, tokens: torch.Tensor, encoder_attention_mask: torch.Tensor,
                    decoder_attention_mask: torch.Tensor) -> torch.Tensor:
        return self._step(tokens, encoder_attention_mask, decoder_attention_mask)


class SpeechSeq2SeqWithCache(Seq2SeqWithCache):
    """Whisper: log-mel features in; every source is max_source positions, unmasked."""

    def encode(self, input_features: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        return self._encode(self.model.get_encoder()(input_features=input_features).last_hidden_state, rows)

    def decode_step(self, tokens: torch.Tensor, decoder_attention_mask: torch.Tensor) -> torch.Tensor:
        return self._step(tokens, None, decoder_attention_mask)


def with_cache(model: nn.Module, max_rows: int, max_source: int, max_target: int) -> Seq2SeqWithCache:
    """The module to export for `model` (text or speech)."""
    kind = SpeechSeq2SeqWithCache if families.is_speech(model) else TextSeq2SeqWithCache
    return kind(model, max_rows, max_source, max_target)
