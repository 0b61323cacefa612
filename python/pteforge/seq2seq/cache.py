"""Seq2SeqWithCache: a transformers encoder-decoder as encode / decode_step /
reorder_cache over one shared cache, the module pteforge.seq2seq exports.

    encode(input_ids [b, S], attention_mask [b, S], rows [n]) -> int64[1]   (text)
    encode(input_features [b, mel, frames], rows [n]) -> int64[1]           (Whisper)
        runs the encoder once per source and writes every decoder layer's
        cross-attention keys and values once per source (b <= max_sources); rows[i] is
        the source of decoder row i (the beams of a source share its keys and values).
        Returns n.
    decode_step(tokens [n, 1], encoder_attention_mask [n, S], decoder_attention_mask [n, T])
    decode_step(tokens [n, 1], decoder_attention_mask [n, T])               (Whisper)
        one decoder step at position T - 1 through the model's own forward: appends the
        step's self-attention keys and values and returns the logits [n, vocab] (the
        search normalizes them where it needs log-probabilities).
    prefill(tokens [1, P], decoder_attention_mask [1, T], position [1])      (Whisper)
        row 0's next P tokens at once (a prompt): what P decode_steps of row 0 write,
        and the logits [1, vocab] after the token at `position`.
    align(tokens [1, T]) -> (scores [heads, T, S], probs [T - 1])           (Whisper)
        word timing (alignment.py): the alignment heads' cross-attention scores over
        row 0's source for a teacher-forced sequence, and each next token's probability.
    reorder_cache(beam_rows [n]) -> int64[1]
        row i's decoder history becomes row beam_rows[i]'s (beam search; beams move
        within their source, whose cross-attention keys are the same): its slot table
        (below) is copied, not its keys and values.

The cache is registered buffers (state shared by the three methods); the model sees it
through transformers' EncoderDecoderCache whose layers (CacheLayer, made on first use)
write and read those buffers. Cross-attention layers are marked as already computed,
so the model reads them and never projects the encoder output again. Shapes carry the
lengths S and T: no step counter in the state.

Each buffer is [heads * slots * positions, head_dim], the (head, slot, position)
vectors in that order: one 1-D index writes any set of them (the form ExecuTorch's
in-place index_put_ kernel supports), and a step reads the whole buffer as it is,
[heads, slots * positions, head_dim], with a mask (attention.py). Self-attention slots
are decoder rows (max_rows of max_target positions), cross-attention slots are sources
(max_sources of max_source positions).

With several rows, which slot holds each position of a row's history is state too,
the slot table (SELF_SLOTS, [max_rows * max_target] int64): a step writes row i's new
keys and values into slot i at its position and sets the table's entry there to i, and
row i attends to (table[i, p], p) for each p < T (the step's mask says so). A key
written there is never written again while a row may read it (a later step writes a
later position), so beam search's reorder copies table rows, max_target integers per
row, instead of every layer's keys and values (for a T5-small-sized model with 4 beams
and 128 positions, 12 MB of cache copied twice per step before).
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from pteforge.seq2seq import alignment, attention, families, norms, program_constants

# transformers' additive attention-mask value (torch.finfo(float32).min).
_MASKED = torch.finfo(torch.float32).min
# The state buffer of each decoder row's source, when there are several sources.
ROW_SOURCES = "row_sources"
# The state buffer of the slot table, when there are several rows (module docstring).
SELF_SLOTS = "self_slots"


@functools.cache
def _layer_classes():
    """The cache-layer classes, defined on first use (importing pteforge.seq2seq does
    not import transformers)."""
    from transformers.cache_utils import CacheLayerMixin

    class SelfAttentionLayer(CacheLayerMixin):
        """A decoder layer's self-attention cache for a step of `new` positions ending at
        T - 1 (one, or a prefill's prompt): update() writes their keys and values there
        and returns the whole cache."""

        is_compileable = True  # transformers then never drops a mask for one query
        is_sliding = False

        def __init__(self, owner: "Seq2SeqWithCache", keys: torch.Tensor, values: torch.Tensor, write: torch.Tensor,
                     length: int, new: int = 1):
            super().__init__()
            self.owner, self.flat_keys, self.flat_values = owner, keys, values
            self.write, self.length, self.new = write, length, new
            self.is_initialized = True

        def lazy_initialization(self, key_states, value_states):
            pass

        def update(self, key_states, value_states, *args, **kwargs):
            """Writes the step's keys and values [n, heads, new, head_dim] (`write` is in
            that order); returns the whole cache, [heads, max_rows, max_target, head_dim]
            (a view: attention.py)."""
            owner = self.owner
            self.flat_keys.index_put_((self.write,), key_states.reshape(-1, owner.head_dim))
            self.flat_values.index_put_((self.write,), value_states.reshape(-1, owner.head_dim))
            shape = (owner.heads, owner.max_rows, owner.max_target, owner.head_dim)
            self.keys, self.values = self.flat_keys.view(shape), self.flat_values.view(shape)
            return self.keys, self.values

        def get_seq_length(self):
            return self.length - self.new  # the positions before this step's

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

    def __init__(self, heads: int, rows: int, max_target: int, sources: int, max_source: int, head_dim: int):
        super().__init__()
        self.register_buffer("self_key", torch.zeros(heads * rows * max_target, head_dim))
        self.register_buffer("self_value", torch.zeros(heads * rows * max_target, head_dim))
        self.register_buffer("cross_key", torch.zeros(heads * sources * max_source, head_dim))
        self.register_buffer("cross_value", torch.zeros(heads * sources * max_source, head_dim))


class Seq2SeqWithCache(nn.Module):
    """`model` with encode / decode_step / reorder_cache (module docstring). `model` is
    switched to the cached attention of attention.py and its layer norms to
    norms.MeanLayerNorm (what lowers to XNNPACK whole); pass a copy to keep the
    original as it was.

    Args:
      model: a transformers encoder-decoder of a family in families.SUPPORTED, eval mode.
      max_rows: most decoder rows at once (sources x beams).
      max_source: longest source in tokens (Whisper: fixed by the model).
      max_target: most decoder positions, the start token included.
      max_sources: most sources at once (default: max_rows). Every step attends over
        all of their cross-attention slots, masked (attention.py): a program for one
        source at a time, greedy or with beams, should say 1.
    """

    def __init__(self, model: nn.Module, max_rows: int, max_source: int, max_target: int,
                 max_sources: int | None = None):
        super().__init__()
        families.check_supported(model)
        layers = families.decoder_layers(model)
        attention.use_cached_attention(model, [layer.self_attention for layer in layers],
                                       [layer.cross_attention for layer in layers])
        norms.layer_norms_as_means(model)
        shape = families.geometry(model)
        self.model = model
        self.max_rows, self.max_source, self.max_target = max_rows, max_source, max_target
        self.max_sources = max_rows if max_sources is None else max_sources
        self.heads, self.head_dim = shape.heads, shape.head_dim
        self.hidden = families.hidden_size(model)
        # Made here, not in the traced methods (torch.export cannot trace a class statement).
        self._layer_types = _layer_classes()
        self.cache = nn.ModuleList(
            LayerCache(shape.heads, max_rows, max_target, self.max_sources, max_source, shape.head_dim)
            for _ in range(shape.layers))
        if self.max_sources > 1:  # the source of each decoder row (encode's rows)
            self.register_buffer(ROW_SOURCES, torch.zeros(max_rows, dtype=torch.int64))
        if self.max_rows > 1:  # the slot of each row's positions (module docstring)
            self.register_buffer(SELF_SLOTS, torch.zeros(max_rows * max_target, dtype=torch.int64))
        self.train(False)

    def _index(self, slots: torch.Tensor, positions: torch.Tensor, slot_count: int, width: int) -> torch.Tensor:
        """Indices of the (head, slot, position) vectors of a cache of `slot_count` slots
        `width` positions wide, in [slots, positions, heads] order (that of a projection's
        output [slots, positions, heads * head_dim])."""
        # Views, not [:, None] (an unsqueeze is a copy in ExecuTorch).
        heads = torch.arange(self.heads).view(1, 1, -1)
        index = (heads * slot_count + slots.view(-1, 1, 1)) * width + positions.view(1, -1, 1)
        return index.reshape(-1)

    def _encode(self, encoded: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        sources, length = encoded.shape[0], encoded.shape[1]
        # Positions past the source keep older values, masked in every step.
        index = self._index(torch.arange(sources), torch.arange(length), self.max_sources, self.max_source)
        for layer, cache in zip(families.decoder_layers(self.model), self.cache):
            cache.cross_key.index_put_((index,), layer.cross_key(encoded).reshape(-1, self.head_dim))
            cache.cross_value.index_put_((index,), layer.cross_value(encoded).reshape(-1, self.head_dim))
        n = rows.shape[0]
        if self.max_sources > 1:
            self.row_sources.index_put_((torch.arange(n),), rows)
        return torch.full((1,), n, dtype=torch.int64)

    def _claim(self, row: torch.Tensor, positions: torch.Tensor) -> None:
        """Records that rows `row` [k] now hold their positions `positions` [k] in their
        own slots (the slot table; nothing without one)."""
        if self.max_rows > 1:
            self.self_slots.index_put_((row * self.max_target + positions,), row)

    def _history_slots(self, rows: int) -> torch.Tensor | None:
        """Which slot holds each position of rows 0..rows-1's histories: [rows, slots,
        max_target] bool (None: one row, its own slot)."""
        if self.max_rows == 1:
            return None
        table = self.self_slots.view(self.max_rows, self.max_target)[:rows]
        return table.view(rows, 1, self.max_target) == torch.arange(self.max_rows).view(1, -1, 1)

    def _masks(self, n: int, source_mask: torch.Tensor | None, decoder_mask: torch.Tensor) -> dict:
        """attention.MASKS for a step of n rows: each row's history up to the step (the
        slot table's slots; the step's own position in its own slot, recorded here), and
        its source's slot where the source mask has tokens (None: every position,
        Whisper; no mask at all where that leaves nothing to mask)."""
        rows = torch.arange(n)
        self._claim(rows, torch.full_like(rows, decoder_mask.shape[1] - 1))
        masks = {"self": _slot_mask(self._history_slots(n), decoder_mask, self.max_target)}
        if self.max_sources == 1:
            own_source = None
            if source_mask is None:
                masks["cross"] = None
                return masks
        else:
            own_source = torch.arange(self.max_sources).view(1, -1) == self.row_sources[:n].view(-1, 1)
            if source_mask is None:
                source_mask = torch.ones(n, self.max_source, dtype=torch.int64)
        masks["cross"] = _slot_mask(own_source, source_mask, self.max_source)
        return masks

    def _prefill_masks(self, new: int, decoder_mask: torch.Tensor) -> dict:
        """attention.MASKS for a prefill of row 0: its `new` positions are query rows of
        their own (attention.py folds them into the rows), position i seeing row 0's
        self-attention slot up to itself and row 0's source."""
        length = decoder_mask.shape[1]
        self._claim(torch.zeros(new, dtype=torch.int64), torch.arange(length - new, length))
        history = self._history_slots(1)
        seen = torch.arange(length).view(1, -1) <= (length - new + torch.arange(new)).view(-1, 1)
        masks = {"self": _slot_mask(history, seen.to(torch.int64), self.max_target)}
        if self.max_sources == 1:
            masks["cross"] = None
        else:
            own_source = torch.arange(self.max_sources).view(1, -1) == self.row_sources[:1].view(-1, 1)
            cross = _slot_mask(own_source, torch.ones(1, self.max_source, dtype=torch.int64), self.max_source)
            masks["cross"] = cross.expand(new, -1)
        return masks

    def _decoder_cache(self, n: int, new: int, length: int):
        """transformers' EncoderDecoderCache over the buffers for a step of `new`
        positions of rows 0..n-1 ending at length - 1."""
        from transformers.cache_utils import Cache, EncoderDecoderCache

        SelfAttentionLayer, CrossAttentionLayer = self._layer_types
        heads, dim = self.heads, self.head_dim
        positions = torch.arange(length - new, length)
        if new == 1:  # [slots, positions, heads]: the order of key_states [n, heads, 1, d] too
            write = self._index(torch.arange(n), positions, self.max_rows, self.max_target)
        else:  # key_states [n, heads, new, d]: heads before positions
            head = torch.arange(self.heads).view(1, -1, 1)
            write = ((head * self.max_rows + torch.arange(n).view(-1, 1, 1)) * self.max_target
                     + positions.view(1, 1, -1)).reshape(-1)
        cross_shape = (heads, self.max_sources, self.max_source, dim)
        self_layers = [SelfAttentionLayer(self, c.self_key, c.self_value, write, length, new) for c in self.cache]
        cross_layers = [CrossAttentionLayer(c.cross_key.view(cross_shape), c.cross_value.view(cross_shape))
                        for c in self.cache]
        cache = EncoderDecoderCache(Cache(layers=self_layers), Cache(layers=cross_layers))
        cache.is_updated = {layer: True for layer in range(len(self.cache))}
        return cache

    def _step(self, tokens: torch.Tensor, source_mask: torch.Tensor | None,
              decoder_mask: torch.Tensor) -> torch.Tensor:
        """One step through the model's own forward over the cache (source_mask None:
        Whisper, whose source is always max_source positions)."""
        from transformers.modeling_outputs import BaseModelOutput

        n, length = tokens.shape[0], decoder_mask.shape[1]
        cache = self._decoder_cache(n, 1, length)
        masks = self._masks(n, source_mask, decoder_mask)
        arguments = dict(
            decoder_input_ids=tokens,
            # 4-D masks pass transformers' mask helpers as they are; the attention reads
            # attention.MASKS instead.
            decoder_attention_mask=masks["self"].view(n, 1, 1, -1),
            past_key_values=cache,
            # Only its presence matters: the cross-attention keys and values are cached.
            encoder_outputs=BaseModelOutput(last_hidden_state=torch.zeros(n, 1, self.hidden)),
            use_cache=True,
        )
        if source_mask is not None:
            arguments["attention_mask"] = masks["cross"].view(n, 1, 1, -1)
        logits = self.model(**arguments, **{attention.MASKS: masks}).logits
        return logits.view(n, -1)  # one position per row

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:
        n = beam_rows.shape[0]
        if self.max_rows > 1:  # one row: nothing moves
            table = self.self_slots.view(self.max_rows, self.max_target)
            entries = (torch.arange(n).view(-1, 1) * self.max_target + torch.arange(self.max_target).view(1, -1))
            self.self_slots.index_put_((entries.reshape(-1),), table.index_select(0, beam_rows).reshape(-1))
        return torch.full((1,), n, dtype=torch.int64)


def _slot_mask(own_slot: torch.Tensor | None, positions: torch.Tensor, width: int) -> torch.Tensor:
    """The additive mask [n, slots * width] of rows whose position p is in slot s where
    own_slot [n or 1, slots, width] (bool) or own_slot [n, slots] (every position in
    those slots) says so (None: one slot, every row's), and is valid where positions
    [n, L <= width] (0/1) says so."""
    rows = positions.shape[0]
    valid = torch.nn.functional.pad(positions, (0, width - positions.shape[1])) != 0
    if own_slot is not None:
        own = own_slot.view(own_slot.shape[0], -1, 1) if own_slot.dim() == 2 else own_slot
        valid = own & valid.view(rows, 1, width)
    return (1.0 - valid.to(torch.float32).view(rows, -1)) * _MASKED


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

    def __init__(self, model: nn.Module, max_rows: int, max_source: int, max_target: int,
                 max_sources: int | None = None):
        super().__init__(model, max_rows, max_source, max_target, max_sources)
        self.alignment_heads = alignment.alignment_heads(model)
        alignment.mark_alignment_heads([layer.cross_attention for layer in families.decoder_layers(model)],
                                       self.alignment_heads)
        # The text tokens: every id below <|endoftext|> (Whisper's special tokens follow it),
        # as a 0/1 column for align's sum (a parameter: a constant of the program, which the
        # int8 quantizer, taking nn.Linear layers only, leaves in float32).
        self.text_vocab = program_constants.eos_token_ids(model)[0]
        vocab = model.get_output_embeddings().weight.shape[0]
        self.text_columns = nn.Parameter((torch.arange(vocab) < self.text_vocab).to(torch.float32).view(-1, 1),
                                         requires_grad=False)

    def encode(self, input_features: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        return self._encode(self.model.get_encoder()(input_features=input_features).last_hidden_state, rows)

    def decode_step(self, tokens: torch.Tensor, decoder_attention_mask: torch.Tensor) -> torch.Tensor:
        return self._step(tokens, None, decoder_attention_mask)

    def _row_zero(self, tokens: torch.Tensor, length: int, masks: dict) -> torch.Tensor:
        """The decoder's last hidden state [1, P, hidden] for row 0's tokens [1, P] at
        positions length - P .. length - 1 (written to its self-attention cache)."""
        new = tokens.shape[1]
        return self.model.get_decoder()(
            input_ids=tokens,
            attention_mask=masks["self"].view(1, 1, new, -1),
            past_key_values=self._decoder_cache(1, new, length),
            # Only its presence matters: the cross-attention keys and values are cached.
            encoder_hidden_states=torch.zeros(1, 1, self.hidden),
            use_cache=True,
            **{attention.MASKS: masks},
        ).last_hidden_state

    def prefill(self, tokens: torch.Tensor, decoder_attention_mask: torch.Tensor,
                position: torch.Tensor) -> torch.Tensor:
        """Row 0's next P tokens [1, P] at positions T - P .. T - 1 in one call (a
        prompt: Whisper's previous text), as P decode_steps of row 0 would write them;
        returns the logits [1, vocab] after tokens[0, position[0]] alone (the output
        projection runs on that position only)."""
        length = decoder_attention_mask.shape[1]
        hidden = self._row_zero(tokens, length, self._prefill_masks(tokens.shape[1], decoder_attention_mask))
        return self.model.get_output_embeddings()(hidden.index_select(1, position)).view(1, -1)

    def align(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Word timing (alignment.py): row 0's whole sequence [1, T] (start tokens,
        <|notimestamps|>, a window's text, <|endoftext|>) teacher-forced over row 0's
        source, as CTranslate2's Whisper align runs it. Returns the alignment heads'
        scaled cross-attention scores [heads, T, source positions] (before the softmax)
        and, for each position p < T - 1, the probability of tokens[p + 1] among the text
        tokens [T - 1] (0 where tokens[p + 1] is a special token). Writes row 0's
        self-attention positions 0 .. T - 1 as a prefill would (a search rewrites every
        position before it reads it)."""
        length = tokens.shape[1]
        masks = self._prefill_masks(length, torch.ones(1, length, dtype=torch.int64))
        collector = alignment.ScoreCollector(self.row_sources[:1] if self.max_sources > 1 else None)
        masks[alignment.SCORES] = collector
        hidden = self._row_zero(tokens, length, masks)
        probs = torch.softmax(self.model.get_output_embeddings()(hidden).view(length, -1), dim=-1)
        vocab = probs.shape[1]
        # The softmax over the text tokens alone (CTranslate2's): the whole one divided by
        # the text tokens' share, a matrix product with a constant 0/1 column (no [T,
        # vocab] copy: the probabilities are read below by a flat index). The floor keeps
        # a share that underflows (a model whose text tokens all score far below its
        # special ones) from 0 / 0.
        share = torch.matmul(probs, self.text_columns).view(-1).clamp_min(torch.finfo(probs.dtype).tiny)
        following = tokens[0, 1:]
        picked = probs.reshape(-1).index_select(0, torch.arange(length - 1) * vocab + following) / share[:-1]
        # A special token is no text token: probability 0 among them.
        probs = torch.where(following < self.text_vocab, picked, torch.zeros_like(picked))
        return collector.result(), probs


def with_cache(model: nn.Module, max_rows: int, max_source: int, max_target: int,
               max_sources: int | None = None) -> Seq2SeqWithCache:
    """The module to export for `model` (text or speech)."""
    kind = SpeechSeq2SeqWithCache if families.is_speech(model) else TextSeq2SeqWithCache
    return kind(model, max_rows, max_source, max_target, max_sources)
