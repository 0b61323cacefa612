"""Corpus: State through layers: nn.Linear, streaming conv1d, embeddings, layer_norm, int8-quantized linears, GRU/LSTM cells, SSRU, a KV cache with beam reordering, greedy decoding, running statistics."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from pteforge.support.spec import MethodSpec

from tests.corpus.builders import INT8_TOLERANCE, built, example_inputs, i64
from tests.corpus.case import Case

_randn = example_inputs(20240614)


# --- 20. State read through nn.Linear ---------------------------------------------------

class ElmanRNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin_x = nn.Linear(4, 8)
        self.lin_h = nn.Linear(8, 8)
        self.lin_out = nn.Linear(8, 3)
        self.register_buffer("h", torch.zeros(1, 8))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 4]
        new = torch.tanh(self.lin_x(x) + self.lin_h(self.h))
        self.h.copy_(new)
        return self.lin_out(new)

    def peek(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        return F.linear(self.h, self.lin_h.weight) + x


# --- 21. Streaming conv1d with a rolling input buffer ------------------------------------

class StreamingConv1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(2, 3, kernel_size=3)
        self.register_buffer("context", torch.zeros(1, 2, 2))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 2, 4]
        full = torch.cat([self.context, x], dim=2)
        self.context.copy_(full[:, :, -2:])
        return self.conv(full)

    def step_chunk(self, x: torch.Tensor) -> torch.Tensor:  # [1, 2, T], T dynamic
        full = torch.cat([self.context, x], dim=2)
        self.context.copy_(full[:, :, -2:])
        return self.conv(full)


# --- 22. Embedding lookup of a token history --------------------------------------------

class TokenHistory(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.register_buffer("history", torch.zeros(3, dtype=torch.int64))

    def push(self, token: torch.Tensor) -> torch.Tensor:  # int64 [1]
        self.history.copy_(torch.cat([self.history[1:], token]))
        return self.emb(self.history).mean(0)

    def context(self, x: torch.Tensor) -> torch.Tensor:  # [4]
        return self.emb(self.history).sum(0) * x


# --- 23. layer_norm applied to state ---------------------------------------------------

class NormedState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(8))
            self.norm.bias.copy_(torch.randn(8))
        self.register_buffer("h", torch.zeros(2, 8))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.add_(x)
        return self.norm(self.h)

    def renorm(self, scale: torch.Tensor) -> torch.Tensor:  # [1]
        self.h.copy_(F.layer_norm(self.h, (8,)) * scale)
        return self.h.clone()


# --- 24. int8-quantized linears with state ---------------------------------------------

class QuantizedRNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin_in = nn.Linear(8, 16)
        self.lin_h = nn.Linear(16, 16)
        self.lin_out = nn.Linear(16, 8)
        self.register_buffer("h", torch.zeros(1, 16))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        new = torch.tanh(self.lin_in(x) + self.lin_h(self.h))
        self.h.copy_(new)
        return self.lin_out(new)

    def peek(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        return self.lin_out(self.h) + x


def _int8(module: nn.Module) -> nn.Module:
    from pteforge.lower.quantize import int8_linears

    return int8_linears(module)


# --- 25/26. GRUCell and LSTMCell -------------------------------------------------------

class GRUStep(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.GRUCell(4, 8)
        self.register_buffer("h", torch.zeros(1, 8))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 4]
        self.h.copy_(self.cell(x, self.h))
        return self.h.clone()

    def step_sequence(self, xs: torch.Tensor) -> torch.Tensor:  # [3, 1, 4]
        outs = []
        for t in range(xs.shape[0]):
            self.h.copy_(self.cell(xs[t], self.h))
            outs.append(self.h.clone())
        return torch.stack(outs)


class LSTMStep(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.LSTMCell(4, 8)
        self.register_buffer("h", torch.zeros(1, 8))
        self.register_buffer("c", torch.zeros(1, 8))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 4]
        h, c = self.cell(x, (self.h, self.c))
        self.h.copy_(h)
        self.c.copy_(c)
        return h

    def cell_state(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        return self.c + x


# --- 27. SSRU ---------------------------------------------------------------------------

class SSRU(nn.Module):
    """Simpler simple recurrent unit (Marian's decoder): f = sigmoid(Wf x);
    c = f * c + (1 - f) * W x; h = relu(c)."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Linear(8, 8, bias=False)
        self.wf = nn.Linear(8, 8)
        self.register_buffer("c", torch.zeros(1, 8))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        f = torch.sigmoid(self.wf(x))
        c = f * self.c + (1 - f) * self.w(x)
        self.c.copy_(c)
        return torch.relu(c)

    def peek(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c) + x


# --- 28. KV cache with beam reordering --------------------------------------------------

class BeamKVCache(nn.Module):
    """append / attend / reorder_cache(beam_rows) with index_select; non-persistent
    buffers, as Hugging Face caches register them."""

    beams, length, dim = 2, 6, 4

    def __init__(self) -> None:
        super().__init__()
        shape = (self.beams, self.length, self.dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("pos", torch.zeros(1, dtype=torch.int64), persistent=False)
        self.register_buffer("filled", torch.zeros(1, dtype=torch.int64), persistent=False)

    def append(self, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # [2, 1, 4] each
        self.k_cache.index_copy_(1, self.pos, k)
        self.v_cache.index_copy_(1, self.pos, v)
        self.pos.copy_((self.pos + 1) % self.length)
        self.filled.copy_(torch.clamp(self.filled + 1, max=self.length))
        return self.filled.clone()

    def attend(self, q: torch.Tensor) -> torch.Tensor:  # [2, 1, 4]
        scores = q @ self.k_cache.transpose(1, 2) / 2.0  # [2, 1, 6]
        valid = torch.arange(self.length) < self.filled
        scores = scores.masked_fill(~valid, -1e9)
        return torch.softmax(scores, dim=-1) @ self.v_cache

    def reorder_cache(self, beam_rows: torch.Tensor) -> torch.Tensor:  # int64 [2]
        self.k_cache.copy_(self.k_cache.index_select(0, beam_rows))
        self.v_cache.copy_(self.v_cache.index_select(0, beam_rows))
        return self.k_cache[:, 0].clone()


class GreedyLastToken(nn.Module):
    """Greedy decoding: the argmax token is kept as int64 state and embedded next step."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.out = nn.Linear(8, 10)
        self.register_buffer("last", torch.zeros(1, dtype=torch.int64))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 8]
        logits = self.out(torch.tanh(self.emb(self.last) + x))
        self.last.copy_(logits.argmax(-1))
        return logits

    def seed(self, token: torch.Tensor) -> torch.Tensor:  # int64 [1]
        self.last.copy_(token)
        return self.emb(token)


class StreamingNormalizer(nn.Module):
    """Running mean / variance updated under no_grad from batches of any size, with a
    bias-corrected estimate from an int64 step count."""

    momentum = 0.9

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(4))
        self.register_buffer("var", torch.ones(4))
        self.register_buffer("count", torch.zeros(1, dtype=torch.int64))

    def update(self, batch: torch.Tensor) -> torch.Tensor:  # [n, 4]
        with torch.no_grad():
            self.mean.mul_(self.momentum).add_(batch.mean(0) * (1 - self.momentum))
            self.var.mul_(self.momentum).add_(batch.var(0, unbiased=False) * (1 - self.momentum))
            self.count.add_(1)
        return self.mean / (1 - torch.pow(self.momentum, self.count.to(torch.float32)))

    def normalize(self, batch: torch.Tensor) -> torch.Tensor:  # [n, 4]
        return (batch - self.mean) / torch.sqrt(self.var + 1e-5)


CASES: list[Case] = [
    Case(
        name="elman_linear_state",
        pattern="state as the activation of nn.Linear / F.linear (Elman RNN)",
        build=built(ElmanRNN),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("h",),
    ),
    Case(
        name="streaming_conv1d",
        pattern="streaming conv1d: a rolling input-context buffer concatenated before the conv, static and dynamic chunk",
        build=built(StreamingConv1d),
        methods=(
            MethodSpec("step", (_randn(1, 2, 4),)),
            MethodSpec("step_chunk", (_randn(1, 2, 3),), dynamic_shapes=({2: Dim("t", min=1, max=8)},)),
        ),
        shared=("context",),
    ),
    Case(
        name="embedding_history",
        pattern="int64 token history shifted with cat and embedded with nn.Embedding",
        build=built(TokenHistory),
        methods=(MethodSpec("push", (i64(7),), input_ranges={0: (0, 9)}), MethodSpec("context", (_randn(4),))),
        shared=("history",),
    ),
    Case(
        name="layer_norm_state",
        pattern="layer_norm (nn.LayerNorm and F.layer_norm) applied to state, result written back",
        build=built(NormedState),
        methods=(MethodSpec("step", (_randn(2, 8),)), MethodSpec("renorm", (torch.tensor([1.5]),))),
        shared=("h",),
    ),
    Case(
        name="int8_quantized_rnn",
        pattern="int8_linears-quantized RNN (dynamic int8 activations, int8 weights) with recurrent state",
        build=built(QuantizedRNN, post=_int8),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("h",),
        backends=("xnnpack",),
        tolerance=INT8_TOLERANCE,
    ),
    Case(
        name="gru_cell",
        pattern="nn.GRUCell step with the hidden state in a buffer; a fixed 3-step unrolled variant",
        build=built(GRUStep),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("step_sequence", (_randn(3, 1, 4),))),
        shared=("h",),
    ),
    Case(
        name="lstm_cell",
        pattern="nn.LSTMCell step with h and c state buffers",
        build=built(LSTMStep),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("cell_state", (_randn(1, 8),))),
        shared=("h", "c"),
    ),
    Case(
        name="ssru",
        pattern="SSRU gate: f = sigmoid(Wf x); c = f*c + (1-f)*W x; h = relu(c)",
        build=built(SSRU),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("c",),
    ),
    Case(
        name="kv_cache_beam",
        pattern="KV cache: append at a position state, masked attention, reorder_cache(beam_rows) with index_select; non-persistent buffers",
        build=built(BeamKVCache),
        methods=(
            MethodSpec("append", (_randn(2, 1, 4), _randn(2, 1, 4))),
            MethodSpec("attend", (_randn(2, 1, 4),)),
            MethodSpec("reorder_cache", (i64(1, 1),), input_ranges={0: (0, 1)}),
        ),
        shared=("k_cache", "v_cache", "pos", "filled"),
    ),
    Case(
        name="greedy_last_token",
        pattern="argmax token kept as int64 state and embedded on the next step",
        build=built(GreedyLastToken),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("seed", (i64(3),), input_ranges={0: (0, 9)})),
        shared=("last",),
    ),
    Case(
        name="streaming_normalizer",
        pattern="running mean/var updated under torch.no_grad from a dynamic batch, bias-corrected by an int64 count",
        build=built(StreamingNormalizer),
        methods=(
            MethodSpec("update", (_randn(3, 4),), dynamic_shapes=({0: Dim("batch", min=1, max=8)},)),
            MethodSpec("normalize", (_randn(2, 4),), dynamic_shapes=({0: Dim("n", min=1, max=8)},)),
        ),
        shared=("mean", "var", "count"),
    ),
]
