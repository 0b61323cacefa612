"""The Bergamot "tiny" Marian architecture as three entry points sharing state.

  encode(input_ids [b, S], attention_mask [b, S], rows [n])
      runs the encoder once per sentence, stores each decoder layer's cross-attention
      keys and values for n decoder rows (rows[i] = the sentence of row i), resets the
      rows' SSRU states and the decoder position to 0. Returns n.
  decode_step(tokens [n, 1], encoder_attention_mask [n, S], candidates [K], rows [n])
      one decoder step of decoder rows `rows` (as encode numbered them) at the stored
      position (then advanced): the token's embedding (a zero vector at position 0:
      Marian has no start token), each row's SSRU state updated in place, attention
      to its stored keys/values; returns the logits of the K candidate target ids
      only, [n, K]: the lexical shortlist makes the output projection K x 256 instead
      of 32000 x 256. Rows left out keep their state: a greedy search steps only the
      sentences still unfinished, instead of carrying finished ones to the end.
  reorder_cache(beam_rows [n])
      row i's SSRU states become row beam_rows[i]'s (beam search). Cross-attention rows
      need no reordering: beams stay within their sentence.

The arithmetic is models/bergamot/reference.py's (equal to the native engine): the
same operation order (queries scaled before the product, post-norm, SSRU gates), with
weights as nn.Linear so that pteforge.lower.quantize can give them int8 weights.
"""

from __future__ import annotations

import math

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
from torch import nn

from models.bergamot.marian_binary import MarianModel
from models.bergamot.reference import DIM, EPS, HEADS, positions

HEAD_DIM = DIM // HEADS
# Additive mask for padded source positions (transformers' and Marian's "minus
# infinity" that stays finite).
_MASKED = torch.finfo(torch.float32).min


def _linear(tensors: dict[str, torch.Tensor], weight: str, bias: str | None) -> nn.Linear:
    """nn.Linear from Marian's W [in, out] (y = x @ W + b) and b [1, out]."""
    w = tensors[weight]
    layer = nn.Linear(w.shape[0], w.shape[1], bias=bias is not None)
    with torch.no_grad():
        layer.weight.copy_(w.T)
        if bias is not None:
            layer.bias.copy_(tensors[bias][0])
    return layer


def _norm(tensors: dict[str, torch.Tensor], prefix: str) -> nn.LayerNorm:
    layer = nn.LayerNorm(DIM, eps=EPS)
    with torch.no_grad():
        layer.weight.copy_(tensors[prefix + "_ln_scale"][0])
        layer.bias.copy_(tensors[prefix + "_ln_bias"][0])
    return layer


class Attention(nn.Module):
    def __init__(self, tensors: dict[str, torch.Tensor], prefix: str):
        super().__init__()
        self.query = _linear(tensors, prefix + "_Wq", prefix + "_bq")
        self.key = _linear(tensors, prefix + "_Wk", prefix + "_bk")
        self.value = _linear(tensors, prefix + "_Wv", prefix + "_bv")
        self.out = _linear(tensors, prefix + "_Wo", prefix + "_bo")
        self.norm = _norm(tensors, prefix + "_Wo")


class FeedForward(nn.Module):
    """x -> LN(x + W2 relu(W1 x + b1) + b2)"""

    def __init__(self, tensors: dict[str, torch.Tensor], prefix: str):
        super().__init__()
        self.inner = _linear(tensors, prefix + "_W1", prefix + "_b1")
        self.outer = _linear(tensors, prefix + "_W2", prefix + "_b2")
        self.norm = _norm(tensors, prefix + "_ffn")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.outer(torch.relu(self.inner(x))))


class EncoderLayer(nn.Module):
    def __init__(self, tensors: dict[str, torch.Tensor], layer: int):
        super().__init__()
        self.attention = Attention(tensors, f"encoder_l{layer}_self")
        self.ffn = FeedForward(tensors, f"encoder_l{layer}_ffn")


class DecoderLayer(nn.Module):
    """SSRU (c = f c' + (1 - f) W x, f = sigmoid(Wf x + bf); x = LN(relu(c) + x)), then
    cross-attention and the feed-forward block."""

    def __init__(self, tensors: dict[str, torch.Tensor], layer: int):
        super().__init__()
        self.ssru = _linear(tensors, f"decoder_l{layer}_rnn_W", None)
        self.forget = _linear(tensors, f"decoder_l{layer}_rnn_Wf", f"decoder_l{layer}_rnn_bf")
        self.ssru_norm = _norm(tensors, f"decoder_l{layer}_rnn_ffn")
        self.attention = Attention(tensors, f"decoder_l{layer}_context")
        self.ffn = FeedForward(tensors, f"decoder_l{layer}_ffn")


class LayerState(nn.Module):
    """One decoder layer's state: its SSRU cell per row, [rows, DIM], and its
    cross-attention keys/values, [rows * heads * max_source, head_dim] (the (row, head,
    position) vectors flattened so that one 1-D index writes or reads any set of them,
    the form ExecuTorch's in-place index_put_ supports; as models/opus/marian.py)."""

    def __init__(self, rows: int, max_source: int):
        super().__init__()
        self.register_buffer("ssru", torch.zeros(rows, DIM))
        self.register_buffer("cross_key", torch.zeros(rows * HEADS * max_source, HEAD_DIM))
        self.register_buffer("cross_value", torch.zeros(rows * HEADS * max_source, HEAD_DIM))


class StatefulBergamot(nn.Module):
    """encode / decode_step / reorder_cache over shared state (see the module docstring).

    Args:
      model: the tensors of a Marian binary model (marian_binary.read_model).
      max_rows: most decoder rows at once (sentences x beams).
      max_source: longest source in tokens (</s> included).
      max_target: most decoder steps.
      int8_embedding: keep Wemb as the file stores it, int8 values and one scale, and
        dequantize the rows a call gathers, a quarter of the float32 table's size.
        As values x (1 / scale) through dequantize_per_tensor, which XNNPACK runs
        (4x faster than a portable int8-to-float copy and a division): each value
        within an ulp of the engine's values / scale.
    """

    def __init__(self, model: MarianModel, max_rows: int, max_source: int, max_target: int,
                 int8_embedding: bool = False):
        super().__init__()
        tensors = {name: torch.from_numpy(value) for name, value in model.tensors.items()}
        layers = lambda side: max(int(n.split("_")[1][1:]) for n in tensors if n.startswith(side + "_l"))  # noqa: E731
        self.max_rows, self.max_source, self.max_target = max_rows, max_source, max_target
        # Wemb is the source and target embedding and the output layer; kept [1, V, DIM]
        # so that gathering the candidates' rows gives the batched matmul's operand
        # directly (ExecuTorch's unsqueeze is a copy).
        self.vocab_size = tensors["Wemb"].shape[0]
        if int8_embedding:
            values, scale = model.int8["Wemb"]
            self.register_buffer("embedding_int8", torch.from_numpy(values.copy())[None])
            self.embedding_step = float(1.0 / scale)
        else:
            self.register_buffer("embedding", tensors["Wemb"].clone()[None])
        self.register_buffer("output_bias", tensors["decoder_ff_logit_out_b"][0].clone())
        self.register_buffer("signal", positions(0, max(max_source, max_target)))
        self.encoder = nn.ModuleList(EncoderLayer(tensors, layer) for layer in range(1, layers("encoder") + 1))
        self.decoder = nn.ModuleList(DecoderLayer(tensors, layer) for layer in range(1, layers("decoder") + 1))
        self.state = nn.ModuleList(LayerState(max_rows, max_source) for _ in self.decoder)
        self.register_buffer("position", torch.zeros(1, dtype=torch.int64))

    def _embedding_rows(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows `ids` of Wemb, [1, len(ids), DIM] float32."""
        if hasattr(self, "embedding_int8"):
            return torch.ops.quantized_decomposed.dequantize_per_tensor(
                self.embedding_int8.index_select(1, ids), self.embedding_step, 0, -127, 127, torch.int8)
        return self.embedding.index_select(1, ids)

    @staticmethod
    def _heads_first(x: torch.Tensor) -> torch.Tensor:
        """[n, t, DIM] -> [n * heads, t, head_dim]"""
        n, t = x.shape[0], x.shape[1]
        return x.view(n, t, HEADS, HEAD_DIM).transpose(1, 2).reshape(n * HEADS, t, HEAD_DIM)

    def _cache_index(self, rows: torch.Tensor, length: int) -> torch.Tensor:
        """Indices of the (row, head, position < length) vectors of a flattened cache,
        in [rows, heads, positions] order."""
        heads = torch.arange(HEADS)
        index = (rows[:, None, None] * HEADS + heads[None, :, None]) * self.max_source + torch.arange(length)[None, None, :]
        return index.reshape(-1)

    @staticmethod
    def _attend(attention: Attention, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        """Post-norm multi-head attention: query [n, q, DIM], keys/values [n * heads, k,
        head_dim], mask [n, 1, 1, k] additive; returns LN(query + Wo attention)."""
        n, q = query.shape[0], query.shape[1]
        scaled = attention.query(query) / math.sqrt(HEAD_DIM)
        weights = torch.bmm(StatefulBergamot._heads_first(scaled), keys.transpose(1, 2))
        weights = weights.view(n, HEADS, q, keys.shape[1]) + mask
        probs = torch.softmax(weights, dim=-1).view(n * HEADS, q, keys.shape[1])
        out = torch.bmm(probs, values).view(n, HEADS, q, HEAD_DIM).transpose(1, 2).reshape(n, q, DIM)
        return attention.norm(query + attention.out(out))

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        length = input_ids.shape[1]
        mask = ((1.0 - attention_mask.to(torch.float32)) * _MASKED)[:, None, None, :]
        x = self._embedding_rows(input_ids.reshape(-1)).view(input_ids.shape[0], length, DIM)
        x = x * math.sqrt(DIM) + self.signal.index_select(0, torch.arange(length))
        for layer in self.encoder:
            attention = layer.attention
            x = self._attend(attention, x, self._heads_first(attention.key(x)), self._heads_first(attention.value(x)), mask)
            x = layer.ffn(x)
        encoded = x.index_select(0, rows)
        n = rows.shape[0]
        all_rows = torch.arange(n)
        # Positions past the source keep older values; steps read only 0..length-1.
        index = self._cache_index(all_rows, length)
        for layer, state in zip(self.decoder, self.state):
            attention = layer.attention
            state.cross_key.index_put_((index,), self._heads_first(attention.key(encoded)).reshape(-1, HEAD_DIM))
            state.cross_value.index_put_((index,), self._heads_first(attention.value(encoded)).reshape(-1, HEAD_DIM))
            state.ssru.index_put_((all_rows,), torch.zeros(n, DIM))
        self.position.copy_(torch.zeros(1, dtype=torch.int64))
        return torch.full((1,), n, dtype=torch.int64)

    def decode_step(self, tokens: torch.Tensor, encoder_attention_mask: torch.Tensor,
                    candidates: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        n, source_length = tokens.shape[0], encoder_attention_mask.shape[1]
        position = self.position
        # Position 0 has no token: a zero vector (times 0 rather than a branch, which
        # a graph cannot hold).
        first = (position > 0).to(torch.float32)
        x = self._embedding_rows(tokens.reshape(-1)).view(n, DIM) * math.sqrt(DIM) * first
        x = (x + self.signal.index_select(0, position)).view(n, 1, DIM)
        mask = ((1.0 - encoder_attention_mask.to(torch.float32)) * _MASKED)[:, None, None, :]
        read_cross = self._cache_index(rows, source_length)
        heads_first = (n * HEADS, source_length, HEAD_DIM)
        for layer, state in zip(self.decoder, self.state):
            forget = torch.sigmoid(layer.forget(x))
            cell = forget * state.ssru.index_select(0, rows).view(n, 1, DIM) + (1 - forget) * layer.ssru(x)
            state.ssru.index_put_((rows,), cell.view(n, DIM))
            x = layer.ssru_norm(torch.relu(cell) + x)
            keys = state.cross_key.index_select(0, read_cross).view(heads_first)
            values = state.cross_value.index_select(0, read_cross).view(heads_first)
            x = self._attend(layer.attention, x, keys, values, mask)
            x = layer.ffn(x)
        self.position.copy_(position + 1)
        # [K, DIM] x [DIM, n] as a batched matmul, which XNNPACK runs (a linear layer
        # with gathered, non-constant weights falls back to a portable kernel); the
        # transposes are of the small operands.
        weights = self._embedding_rows(candidates)
        logits = torch.bmm(weights, x.view(1, n, DIM).transpose(1, 2)).view(candidates.shape[0], n).t()
        return logits + self.output_bias.index_select(0, candidates)

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:
        rows = torch.arange(beam_rows.shape[0])
        for state in self.state:
            state.ssru.index_put_((rows,), state.ssru.index_select(0, beam_rows))
        return torch.full((1,), beam_rows.shape[0], dtype=torch.int64)
