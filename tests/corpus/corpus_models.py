"""The corpus: small stateful models written the way users write them.

Each entry in CASES stands for one pattern of keeping state in buffers shared between
the methods of one module (resets, counters, caches, recurrent cells, quantized
layers, ...). Every model is tiny (hidden sizes <= 16) so the whole corpus exports in
minutes; the build functions seed torch so weights are the same on every run.

The entries say what must happen (export succeeds on `backends`, or is refused with an
ExportError matching `refused`); the corpus test checks it.
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from pteforge.spec import MethodSpec, Tolerance

from tests.corpus.case import Case

# torch.export drops `self.h = ...`; pteforge refuses it, naming the buffer.
_REASSIGNED = (r"^method 'step', buffer 'h': assigns a new tensor to the buffer \(`self\.h = \.\.\.`\)\. "
               r"torch\.export keeps only in-place writes.*self\.h\.copy_\(new_value\)")

_GENERATOR = torch.Generator().manual_seed(20240611)


def _randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Deterministic example input."""
    return torch.randn(*shape, generator=_GENERATOR).to(dtype)


def _built(cls: type[nn.Module], *args, seed: int = 0, post: Callable[[nn.Module], nn.Module] | None = None):
    """A build function: seeds torch, constructs `cls(*args)`, optionally transforms it
    (e.g. quantizes it), and returns it in eval mode."""

    def build() -> nn.Module:
        torch.manual_seed(seed)
        module = cls(*args)
        if post is not None:
            module = post(module)
        return module.eval()

    build.__name__ = f"build_{cls.__name__}"
    return build


# --- 1. State reset from a never-mutated buffer ---------------------------------------

class ResetFromBuffer(nn.Module):
    """A recurrent state reset to a stored initial value: `h.copy_(h0)`."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h0", torch.randn(4) * 0.1)
        self.register_buffer("h", torch.zeros(4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        new = torch.tanh(self.lin(x) + self.h)
        self.h.copy_(new)
        return new

    def reset(self) -> torch.Tensor:
        self.h.copy_(self.h0)
        return self.h.clone()


class BeginFromBuffer(nn.Module):
    """Starting a new sequence: reset from h0 then take the first step, in one method."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h0", torch.randn(2, 4) * 0.1)
        self.register_buffer("h", torch.zeros(2, 4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        new = torch.tanh(self.lin(x) + self.h)
        self.h.copy_(new)
        return new

    def begin(self, x: torch.Tensor) -> torch.Tensor:
        self.h.copy_(self.h0)
        return self.step(x)


# --- 2. State reset from an nn.Parameter ----------------------------------------------

class ResetFromParameter(nn.Module):
    """A learned initial state (nn.Parameter) copied into the recurrent state."""

    def __init__(self) -> None:
        super().__init__()
        self.h_init = nn.Parameter(torch.randn(2, 4) * 0.1)
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h", torch.zeros(2, 4))

    def start(self, x: torch.Tensor) -> torch.Tensor:
        self.h.copy_(self.h_init)
        return self.h + x

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.copy_(torch.tanh(self.lin(x) + self.h))
        return self.h.clone()


# --- 3. State from a constant / literal -----------------------------------------------

class ResetToLiteral(nn.Module):
    """Resets to constants with zero_() and fill_()."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(3, 4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.mul_(0.9).add_(x)
        return self.h.clone()

    def clear(self) -> torch.Tensor:
        self.h.zero_()
        return self.h.sum().reshape(1)

    def warm(self, x: torch.Tensor) -> torch.Tensor:
        self.h.fill_(0.5)
        return self.h * x


# --- 4. One buffer written by several methods -----------------------------------------

class MultiWriter(nn.Module):
    """add / scale / reset / broadcast-set, all writing the same accumulator."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.ones(2, 4))

    def add(self, x: torch.Tensor) -> torch.Tensor:
        self.acc.add_(x)
        return self.acc.clone()

    def scale(self, factor: torch.Tensor) -> torch.Tensor:
        self.acc.mul_(factor)
        return self.acc.clone()

    def reset(self, x: torch.Tensor) -> torch.Tensor:
        self.acc.zero_()
        return self.acc + x

    def set_all(self, row: torch.Tensor) -> torch.Tensor:
        self.acc.copy_(row)  # broadcast [4] -> [2, 4]
        return self.acc.clone()


# --- 5. int64 state (a counter) --------------------------------------------------------

class Int64Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int64))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.steps.add_(1)
        return x * self.steps.to(x.dtype)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.steps  # int64 + float -> float


# --- 6. bool state ---------------------------------------------------------------------

class BoolFlag(nn.Module):
    """A per-element flag set from a comparison, toggled, cleared, used with where."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("flag", torch.zeros(4, dtype=torch.bool))

    def arm(self, x: torch.Tensor) -> torch.Tensor:
        self.flag.copy_(x > 0)
        return self.flag.clone()

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(self.flag, x, torch.zeros_like(x))

    def toggle(self, x: torch.Tensor) -> torch.Tensor:
        self.flag.copy_(~self.flag)
        return torch.where(self.flag, x, -x)

    def disarm(self) -> torch.Tensor:
        self.flag.fill_(False)
        return self.flag.to(torch.float32)


# --- 7/8. float16 and bfloat16 state ---------------------------------------------------

class HalfState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.full((4,), 0.25, dtype=torch.float16))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # x: float16
        self.h.mul_(0.5).add_(x)
        return self.h.clone()

    def read_f32(self, x: torch.Tensor) -> torch.Tensor:  # x: float32
        return self.h.float() + x


class BFloat16State(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(2, 4, dtype=torch.bfloat16))

    def accumulate(self, x: torch.Tensor) -> torch.Tensor:  # x: bfloat16
        self.acc.add_(x)
        return self.acc.clone()

    def mean(self, x: torch.Tensor) -> torch.Tensor:  # x: float32
        return self.acc.float().mean(0) + x


# --- 9. Position as state: a ring buffer -----------------------------------------------

class RingBuffer(nn.Module):
    """Writes one row per call at `pos`, which wraps modulo the capacity."""

    capacity = 4

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(self.capacity, 3))
        self.register_buffer("pos", torch.zeros(1, dtype=torch.int64))

    def push(self, row: torch.Tensor) -> torch.Tensor:  # row: [1, 3]
        self.buf.index_copy_(0, self.pos, row)
        self.pos.copy_((self.pos + 1) % self.capacity)
        return self.buf.sum(0)

    def mean(self, x: torch.Tensor) -> torch.Tensor:
        return self.buf.mean(0) + x


# --- 10. index_copy_ with a dynamic number of rows --------------------------------------

class ChunkAppend(nn.Module):
    """Appends a variable number of rows at a running position (wrapping), or at an
    offset given by the caller."""

    rows = 8

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(self.rows, 4))
        self.register_buffer("pos", torch.zeros(1, dtype=torch.int64))

    def append(self, chunk: torch.Tensor) -> torch.Tensor:  # chunk: [n, 4], n <= 3
        n = chunk.shape[0]
        index = (self.pos + torch.arange(n)) % self.rows
        self.buf.index_copy_(0, index, chunk)
        self.pos.copy_((self.pos + n) % self.rows)
        return self.pos.clone()

    def write_at(self, chunk: torch.Tensor, start: torch.Tensor) -> torch.Tensor:  # start: int64 [1]
        self.buf.index_copy_(0, start + torch.arange(chunk.shape[0]), chunk)
        return self.buf.sum(0)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.buf * x


# --- 11. index_put_ with an index tensor ------------------------------------------------

class IndexPutTable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.zeros(6, 4))

    def update(self, index: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        self.table.index_put_((index,), values)
        return self.table.sum(0)

    def assign(self, index: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        self.table[index] = values
        return self.table.sum(1)

    def accumulate(self, index: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        self.table.index_put_((index,), values, accumulate=True)
        return self.table.clone()


# --- 12. scatter_ into state -----------------------------------------------------------

class ScatterState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("hist", torch.zeros(5))
        self.register_buffer("grid", torch.zeros(2, 5))

    def count(self, tokens: torch.Tensor) -> torch.Tensor:  # int64 [3]
        self.hist.scatter_add_(0, tokens, torch.ones(3))
        return self.hist.clone()

    def mark(self, cols: torch.Tensor) -> torch.Tensor:  # int64 [2, 1]
        self.grid.scatter_(1, cols, 1.0)
        return self.grid.sum(1)

    def place(self, cols: torch.Tensor, src: torch.Tensor) -> torch.Tensor:  # [2, 1], [2, 1]
        self.grid.copy_(torch.scatter(self.grid, 1, cols, src))
        return self.grid.clone()


# --- 13. Fixed-size slice assignment ---------------------------------------------------

class FixedSliceAssign(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(8))
        self.register_buffer("grid", torch.zeros(2, 4))

    def write(self, x: torch.Tensor) -> torch.Tensor:  # [3]
        self.buf[2:5] = x
        return self.buf.clone()

    def write_tail(self, x: torch.Tensor) -> torch.Tensor:  # [2]
        self.buf[-2:] = x
        return self.buf.clone()

    def write_block(self, x: torch.Tensor) -> torch.Tensor:  # [2, 2]
        self.grid[:, 1:3] = x
        return self.grid.sum(0)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.buf * x


# --- 14. In-place ops on views of state ------------------------------------------------

class ViewInPlace(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.arange(12, dtype=torch.float32).reshape(3, 4) / 10)

    def bump_column(self, x: torch.Tensor) -> torch.Tensor:  # [3]
        self.buf[:, 0].add_(x)
        return self.buf.clone()

    def double_rows(self, x: torch.Tensor) -> torch.Tensor:  # [3]
        self.buf.narrow(0, 1, 2).mul_(2)
        return self.buf.sum(1) + x

    def edit_rows(self, x: torch.Tensor) -> torch.Tensor:  # [4]
        self.buf[0].clamp_(min=-1.0, max=1.0)
        self.buf[2].copy_(x)
        return self.buf.clone()

    def sub_transposed(self, x: torch.Tensor) -> torch.Tensor:  # [3]
        self.buf.t()[1].sub_(x)
        return self.buf.clone()


# --- 15. State inside nested submodules -----------------------------------------------

class _Cell(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.h.copy_(torch.tanh(self.lin(x) + self.h))
        return self.h.clone()


class _Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = _Cell()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.cell(x) * 2


class _Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("memory", torch.zeros(4))
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        self.steps.add_(1)
        return y * self.memory + self.steps


class NestedState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = _Encoder()
        self.decoder = _Decoder()

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        out = self.encoder(x)
        self.decoder.memory.copy_(out)
        return out

    def decode(self, y: torch.Tensor) -> torch.Tensor:
        return self.decoder(y)


# --- 16. State inside an nn.ModuleList -------------------------------------------------

class _Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("state", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.state.mul_(0.5).add_(x)
        return torch.tanh(self.lin(x) + self.state)


class LayerStack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([_Layer() for _ in range(3)])

    def step(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x

    def reset(self) -> torch.Tensor:
        for layer in self.layers:
            layer.state.zero_()
        return torch.stack([layer.state for layer in self.layers])


# --- 17. Methods without tensor inputs --------------------------------------------------

class Clock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("t", torch.zeros(1))

    def tick(self) -> torch.Tensor:
        self.t.add_(1.0)
        return self.t.clone()

    def now(self) -> torch.Tensor:
        return self.t * 1.0

    def phase(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x * self.t)


class InitialState(nn.Module):
    """`initial_state()` returning a fresh zero tensor: an output that is a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(1, 4))

    def initial_state(self) -> torch.Tensor:
        return torch.zeros(1, 4)

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.add_(x)
        return self.h.clone()


# --- 18. A method without outputs -------------------------------------------------------

class NoOutput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))

    def observe(self, x: torch.Tensor) -> None:
        self.acc.add_(x)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.acc + x


# --- 19. Several outputs ---------------------------------------------------------------

class MultiOutput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h", torch.zeros(4))

    def step(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.h.copy_(torch.tanh(self.lin(x) + self.h))
        return self.lin(self.h), self.h.clone()

    def step_list(self, x: torch.Tensor) -> list[torch.Tensor]:
        self.h.add_(x)
        return [self.h * 2, self.h.sum().reshape(1), x - self.h]


class NestedTupleOutput(nn.Module):
    """`return y, (h, c)`, as LSTM-style modules do."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(4))
        self.register_buffer("c", torch.zeros(4))

    def step(self, x: torch.Tensor):
        self.c.add_(x)
        self.h.copy_(torch.tanh(self.c))
        return self.h * 3, (self.h.clone(), self.c.clone())


class DictOutput(nn.Module):
    """`return {"logits": ..., "state": ...}`, as Hugging Face-style modules do."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 6)
        self.register_buffer("h", torch.zeros(4))

    def step(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        self.h.mul_(0.5).add_(x)
        return {"logits": self.lin(self.h), "state": self.h.clone()}


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
    from pteforge.quantize import int8_linears

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


# --- 29. Many methods sharing state -----------------------------------------------------

class Controller(nn.Module):
    """Twelve methods over gain, bias, accumulator, step count and a history."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("gain", torch.ones(1))
        self.register_buffer("bias", torch.zeros(4))
        self.register_buffer("acc", torch.zeros(4))
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int64))
        self.register_buffer("history", torch.zeros(4, 4))

    def set_gain(self, g: torch.Tensor) -> torch.Tensor:
        self.gain.copy_(g)
        return self.gain.clone()

    def set_bias(self, b: torch.Tensor) -> torch.Tensor:
        self.bias.copy_(b)
        return self.bias.clone()

    def shift_bias(self, delta: torch.Tensor) -> torch.Tensor:
        self.bias.add_(delta)
        return self.bias.clone()

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.gain + self.bias

    def accumulate(self, x: torch.Tensor) -> torch.Tensor:
        self.acc.add_(x * self.gain + self.bias)
        self.steps.add_(1)
        return self.acc.clone()

    def average(self, x: torch.Tensor) -> torch.Tensor:
        return self.acc / self.steps.clamp(min=1).to(torch.float32) + x

    def decay(self, rate: torch.Tensor) -> torch.Tensor:
        self.acc.mul_(rate)
        return self.acc.clone()

    def clamp_acc(self, limit: torch.Tensor) -> torch.Tensor:
        self.acc.copy_(torch.clamp(self.acc, -limit, limit))
        return self.acc.clone()

    def record(self, x: torch.Tensor) -> torch.Tensor:  # [1, 4]
        self.history.index_copy_(0, self.steps % 4, x)
        return self.history.clone()

    def history_sum(self, x: torch.Tensor) -> torch.Tensor:
        return self.history.sum(0) + x

    def norm(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vector_norm(self.acc).reshape(1) * x

    def step_count(self, x: torch.Tensor) -> torch.Tensor:
        return self.steps.to(torch.float32) + x


# --- 30. Attribute reassignment instead of an in-place update --------------------------

class AttributeReassign(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h = self.h * 0.5 + x
        return self.h * 2

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.h + x


# --- 31. Accumulation with += -----------------------------------------------------------

class AugmentedAssign(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))
        self.register_buffer("count", torch.zeros(1))

    def observe(self, x: torch.Tensor) -> torch.Tensor:
        self.acc += x
        self.count += 1
        return self.acc / self.count

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.acc * x


# --- 32. Float state updated from integer / bool inputs --------------------------------

class DtypeConversion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(3))

    def add_counts(self, counts: torch.Tensor) -> torch.Tensor:  # int64 [3]
        self.total.add_(counts)
        return self.total.clone()

    def set_from_int(self, values: torch.Tensor) -> torch.Tensor:  # int32 [3]
        self.total.copy_(values)
        return self.total * 0.5

    def add_mask(self, mask: torch.Tensor) -> torch.Tensor:  # bool [3]
        self.total.add_(mask)
        return self.total.clone()


# --- Further patterns -------------------------------------------------------------------

class MaskedRowReset(nn.Module):
    """Batched recurrent state where finished rows are reset (to 0 or to h0) by a mask."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(3, 4))
        self.register_buffer("h0", torch.randn(3, 4) * 0.1)

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [3, 4]
        self.h.copy_(torch.tanh(self.h + x))
        return self.h.clone()

    def reset_rows(self, done: torch.Tensor) -> torch.Tensor:  # bool [3]
        self.h.masked_fill_(done.unsqueeze(1), 0.0)
        return self.h.clone()

    def reset_rows_to_init(self, done: torch.Tensor) -> torch.Tensor:  # bool [3]
        self.h.copy_(torch.where(done[:, None], self.h0, self.h))
        return self.h.clone()


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


class ReturnStateAlias(nn.Module):
    """Returns the state buffer itself (no clone), after and without an update."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.add_(x)
        return self.h

    def snapshot(self) -> torch.Tensor:
        return self.h


class ZeroDimState(nn.Module):
    """0-dimensional state: a float time and an int64 count."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("t", torch.zeros(()))
        self.register_buffer("n", torch.zeros((), dtype=torch.int64))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.t.add_(0.5)
        self.n.add_(1)
        return x * self.t + self.n

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.t


class PingPong(nn.Module):
    """Double buffering: write the back buffer, swap front and back."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("front", torch.zeros(4))
        self.register_buffer("back", torch.ones(4))

    def write(self, x: torch.Tensor) -> torch.Tensor:
        self.back.copy_(x)
        return self.back.sum().reshape(1)

    def swap(self) -> torch.Tensor:
        old_front = self.front.clone()
        self.front.copy_(self.back)
        self.back.copy_(old_front)
        return self.front.clone()

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.front + x


class PrivateAndShared(nn.Module):
    """Shared state plus a private counter in each method (not declared shared)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(4))
        self.register_buffer("calls", torch.zeros(1, dtype=torch.int64))
        self.register_buffer("reads", torch.zeros(1))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.h.add_(x)
        self.calls.add_(1)
        return self.h * self.calls

    def read(self, x: torch.Tensor) -> torch.Tensor:
        self.reads.add_(1)
        return self.h + x + self.reads


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


# --- The corpus --------------------------------------------------------------------------

_HALF_TOLERANCE = Tolerance(atol=1e-3, rtol=1e-3)
_BF16_TOLERANCE = Tolerance(atol=1e-2, rtol=1e-2)
_INT8_TOLERANCE = Tolerance(atol=5e-2, rtol=5e-2)


def _i64(*values: int) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


CASES: list[Case] = [
    Case(
        name="reset_from_buffer",
        pattern="state reset from a never-mutated buffer: h.copy_(h0), in a zero-arg reset()",
        build=_built(ResetFromBuffer),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("reset", ())),
        shared=("h",),
    ),
    Case(
        name="begin_from_buffer",
        pattern="h.copy_(h0) then a step in the same method (start of a sequence)",
        build=_built(BeginFromBuffer),
        methods=(MethodSpec("begin", (_randn(2, 4),)), MethodSpec("step", (_randn(2, 4),))),
        shared=("h",),
    ),
    Case(
        name="reset_from_parameter",
        pattern="state reset from a learned initial state: h.copy_(h_init), h_init an nn.Parameter",
        build=_built(ResetFromParameter),
        methods=(MethodSpec("start", (_randn(2, 4),)), MethodSpec("step", (_randn(2, 4),))),
        shared=("h",),
    ),
    Case(
        name="reset_to_literal",
        pattern="state set to constants: h.zero_(), h.fill_(0.5)",
        build=_built(ResetToLiteral),
        methods=(MethodSpec("step", (_randn(3, 4),)), MethodSpec("clear", ()), MethodSpec("warm", (_randn(3, 4),))),
        shared=("h",),
    ),
    Case(
        name="multi_writer",
        pattern="one buffer written by several methods: add / scale / reset / broadcast copy_",
        build=_built(MultiWriter),
        methods=(
            MethodSpec("add", (_randn(2, 4),)),
            MethodSpec("scale", (torch.tensor([0.5]),)),
            MethodSpec("reset", (_randn(2, 4),)),
            MethodSpec("set_all", (_randn(4),)),
        ),
        shared=("acc",),
    ),
    Case(
        name="int64_counter",
        pattern="int64 state: a step counter incremented each call and read as float",
        build=_built(Int64Counter),
        methods=(MethodSpec("step", (_randn(3),)), MethodSpec("read", (_randn(3),))),
        shared=("steps",),
    ),
    Case(
        name="bool_flag",
        pattern="bool state set from a comparison, toggled with ~, cleared, used in torch.where",
        build=_built(BoolFlag),
        methods=(
            MethodSpec("arm", (_randn(4),)),
            MethodSpec("apply", (_randn(4),)),
            MethodSpec("toggle", (_randn(4),)),
            MethodSpec("disarm", ()),
        ),
        shared=("flag",),
    ),
    Case(
        name="float16_state",
        pattern="float16 state updated in place from float16 input, read into float32",
        build=_built(HalfState),
        methods=(MethodSpec("step", (_randn(4, dtype=torch.float16),)), MethodSpec("read_f32", (_randn(4),))),
        shared=("h",),
        tolerance=_HALF_TOLERANCE,
    ),
    Case(
        name="bfloat16_state",
        pattern="bfloat16 accumulator, read into float32",
        build=_built(BFloat16State),
        methods=(MethodSpec("accumulate", (_randn(2, 4, dtype=torch.bfloat16),)), MethodSpec("mean", (_randn(4),))),
        shared=("acc",),
        tolerance=_BF16_TOLERANCE,
    ),
    Case(
        name="ring_buffer_position",
        pattern="int64 position state indexing index_copy_ into a ring buffer, wrapped % capacity",
        build=_built(RingBuffer),
        methods=(MethodSpec("push", (_randn(1, 3),)), MethodSpec("mean", (_randn(3),))),
        shared=("buf", "pos"),
    ),
    Case(
        name="dynamic_chunk_append",
        pattern="index_copy_ of a dynamic number of rows (Dim max < rows) at a running or given offset",
        build=_built(ChunkAppend),
        methods=(
            MethodSpec("append", (_randn(2, 4),), dynamic_shapes=({0: Dim("chunk", min=1, max=3)},)),
            MethodSpec(
                "write_at", (_randn(2, 4), _i64(3)),
                dynamic_shapes=({0: Dim("rows", min=1, max=3)}, None),
                input_ranges={1: (0, 5)},
            ),
            MethodSpec("read", (_randn(8, 4),)),
        ),
        shared=("buf", "pos"),
    ),
    Case(
        name="index_put_table",
        pattern="index_put_ / table[index] = values / accumulate=True with an index tensor input",
        build=_built(IndexPutTable),
        methods=(
            MethodSpec("update", (_i64(1, 4), _randn(2, 4)), input_ranges={0: (0, 5)}),
            MethodSpec("assign", (_i64(0, 5), _randn(2, 4)), input_ranges={0: (0, 5)}),
            MethodSpec("accumulate", (_i64(2, 2), _randn(2, 4)), input_ranges={0: (0, 5)}),
        ),
        shared=("table",),
    ),
    Case(
        name="scatter_state",
        pattern="scatter_add_ histogram, scatter_ of a scalar, out-of-place scatter copied back",
        build=_built(ScatterState),
        methods=(
            MethodSpec("count", (_i64(0, 3, 3),), input_ranges={0: (0, 4)}),
            MethodSpec("mark", (torch.tensor([[1], [4]]),), input_ranges={0: (0, 4)}),
            MethodSpec("place", (torch.tensor([[2], [0]]), _randn(2, 1)), input_ranges={0: (0, 4)}),
        ),
        shared=("grid",),
    ),
    Case(
        name="fixed_slice_assign",
        pattern="fixed-size slice assignment within bounds: buf[2:5] = x, buf[-2:] = x, grid[:, 1:3] = x",
        build=_built(FixedSliceAssign),
        methods=(
            MethodSpec("write", (_randn(3),)),
            MethodSpec("write_tail", (_randn(2),)),
            MethodSpec("write_block", (_randn(2, 2),)),
            MethodSpec("read", (_randn(8),)),
        ),
        shared=("buf",),
    ),
    Case(
        name="view_inplace",
        pattern="in-place ops on views of state: buf[:, 0].add_, narrow().mul_, buf[0].clamp_, buf.t()[1].sub_",
        build=_built(ViewInPlace),
        methods=(
            MethodSpec("bump_column", (_randn(3),)),
            MethodSpec("double_rows", (_randn(3),)),
            MethodSpec("edit_rows", (_randn(4),)),
            MethodSpec("sub_transposed", (_randn(3),)),
        ),
        shared=("buf",),
    ),
    Case(
        name="nested_submodules",
        pattern="state in nested submodules, declared by submodule name and by dotted buffer name",
        build=_built(NestedState),
        methods=(MethodSpec("encode", (_randn(4),)), MethodSpec("decode", (_randn(4),))),
        shared=("encoder", "decoder.memory"),
    ),
    Case(
        name="module_list_layers",
        pattern="an nn.ModuleList of layers, each with its own state buffer, declared by the list's name",
        build=_built(LayerStack),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("reset", ())),
        shared=("layers",),
    ),
    Case(
        name="zero_arg_methods",
        pattern="methods without inputs: tick() updating state, now() reading it",
        build=_built(Clock),
        methods=(MethodSpec("tick", ()), MethodSpec("now", ()), MethodSpec("phase", (_randn(3),))),
        shared=("t",),
    ),
    Case(
        name="constant_output_method",
        pattern="initial_state() with no inputs returning a fresh torch.zeros (a constant output)",
        build=_built(InitialState),
        methods=(MethodSpec("initial_state", ()), MethodSpec("step", (_randn(1, 4),))),
        shared=("h",),
    ),
    Case(
        name="no_output_method",
        pattern="a method that only updates state and returns None",
        build=_built(NoOutput),
        methods=(MethodSpec("observe", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("acc",),
    ),
    Case(
        name="multi_outputs",
        pattern="several outputs: a tuple of tensors and a list of tensors",
        build=_built(MultiOutput),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("step_list", (_randn(4),))),
        shared=("h",),
    ),
    Case(
        name="nested_tuple_output",
        pattern="LSTM-style nested output: return y, (h, c)",
        build=_built(NestedTupleOutput),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("h", "c"),
    ),
    Case(
        name="dict_output",
        pattern="Hugging Face-style dict output: {'logits': ..., 'state': ...}",
        build=_built(DictOutput),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("h",),
    ),
    Case(
        name="elman_linear_state",
        pattern="state as the activation of nn.Linear / F.linear (Elman RNN)",
        build=_built(ElmanRNN),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("h",),
    ),
    Case(
        name="streaming_conv1d",
        pattern="streaming conv1d: a rolling input-context buffer concatenated before the conv, static and dynamic chunk",
        build=_built(StreamingConv1d),
        methods=(
            MethodSpec("step", (_randn(1, 2, 4),)),
            MethodSpec("step_chunk", (_randn(1, 2, 3),), dynamic_shapes=({2: Dim("t", min=1, max=8)},)),
        ),
        shared=("context",),
    ),
    Case(
        name="embedding_history",
        pattern="int64 token history shifted with cat and embedded with nn.Embedding",
        build=_built(TokenHistory),
        methods=(MethodSpec("push", (_i64(7),), input_ranges={0: (0, 9)}), MethodSpec("context", (_randn(4),))),
        shared=("history",),
    ),
    Case(
        name="layer_norm_state",
        pattern="layer_norm (nn.LayerNorm and F.layer_norm) applied to state, result written back",
        build=_built(NormedState),
        methods=(MethodSpec("step", (_randn(2, 8),)), MethodSpec("renorm", (torch.tensor([1.5]),))),
        shared=("h",),
    ),
    Case(
        name="int8_quantized_rnn",
        pattern="int8_linears-quantized RNN (dynamic int8 activations, int8 weights) with recurrent state",
        build=_built(QuantizedRNN, post=_int8),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("h",),
        backends=("xnnpack",),
        tolerance=_INT8_TOLERANCE,
    ),
    Case(
        name="gru_cell",
        pattern="nn.GRUCell step with the hidden state in a buffer; a fixed 3-step unrolled variant",
        build=_built(GRUStep),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("step_sequence", (_randn(3, 1, 4),))),
        shared=("h",),
    ),
    Case(
        name="lstm_cell",
        pattern="nn.LSTMCell step with h and c state buffers",
        build=_built(LSTMStep),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("cell_state", (_randn(1, 8),))),
        shared=("h", "c"),
    ),
    Case(
        name="ssru",
        pattern="SSRU gate: f = sigmoid(Wf x); c = f*c + (1-f)*W x; h = relu(c)",
        build=_built(SSRU),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("peek", (_randn(1, 8),))),
        shared=("c",),
    ),
    Case(
        name="kv_cache_beam",
        pattern="KV cache: append at a position state, masked attention, reorder_cache(beam_rows) with index_select; non-persistent buffers",
        build=_built(BeamKVCache),
        methods=(
            MethodSpec("append", (_randn(2, 1, 4), _randn(2, 1, 4))),
            MethodSpec("attend", (_randn(2, 1, 4),)),
            MethodSpec("reorder_cache", (_i64(1, 1),), input_ranges={0: (0, 1)}),
        ),
        shared=("k_cache", "v_cache", "pos", "filled"),
    ),
    Case(
        name="many_methods",
        pattern="twelve methods sharing gain, bias, accumulator, int64 step count and a history",
        build=_built(Controller),
        methods=(
            MethodSpec("set_gain", (torch.tensor([2.0]),)),
            MethodSpec("set_bias", (_randn(4),)),
            MethodSpec("shift_bias", (_randn(4),)),
            MethodSpec("apply", (_randn(4),)),
            MethodSpec("accumulate", (_randn(4),)),
            MethodSpec("average", (_randn(4),)),
            MethodSpec("decay", (torch.tensor([0.9]),)),
            MethodSpec("clamp_acc", (torch.tensor([1.0]),)),
            MethodSpec("record", (_randn(1, 4),)),
            MethodSpec("history_sum", (_randn(4),)),
            MethodSpec("norm", (_randn(4),)),
            MethodSpec("step_count", (_randn(1),)),
        ),
        shared=("gain", "bias", "acc", "steps", "history"),
    ),
    Case(
        name="attribute_reassign",
        pattern="state updated by attribute reassignment self.h = self.h * 0.5 + x (not in place)",
        build=_built(AttributeReassign),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("h",),
        backends=(),
        refused={backend: _REASSIGNED for backend in ("portable", "xnnpack")},
    ),
    Case(
        name="augmented_assign",
        pattern="state accumulated with += (self.acc += x; self.count += 1)",
        build=_built(AugmentedAssign),
        methods=(MethodSpec("observe", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("acc", "count"),
    ),
    Case(
        name="dtype_conversion",
        pattern="float state updated from int64 / int32 / bool inputs (add_, copy_ converting)",
        build=_built(DtypeConversion),
        methods=(
            MethodSpec("add_counts", (_i64(1, 2, 3),), input_ranges={0: (0, 100)}),
            MethodSpec("set_from_int", (torch.tensor([4, -5, 6], dtype=torch.int32),), input_ranges={0: (-100, 100)}),
            MethodSpec("add_mask", (torch.tensor([True, False, True]),)),
        ),
        shared=("total",),
    ),
    Case(
        name="masked_row_reset",
        pattern="batched state with finished rows reset by a bool mask: masked_fill_ and where(done, h0, h)",
        build=_built(MaskedRowReset),
        methods=(
            MethodSpec("step", (_randn(3, 4),)),
            MethodSpec("reset_rows", (torch.tensor([True, False, True]),)),
            MethodSpec("reset_rows_to_init", (torch.tensor([False, True, False]),)),
        ),
        shared=("h",),
    ),
    Case(
        name="greedy_last_token",
        pattern="argmax token kept as int64 state and embedded on the next step",
        build=_built(GreedyLastToken),
        methods=(MethodSpec("step", (_randn(1, 8),)), MethodSpec("seed", (_i64(3),), input_ranges={0: (0, 9)})),
        shared=("last",),
    ),
    Case(
        name="return_state_alias",
        pattern="returning the state buffer itself (no clone), after an in-place update and from a zero-arg getter",
        build=_built(ReturnStateAlias),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("snapshot", ())),
        shared=("h",),
    ),
    Case(
        name="zero_dim_state",
        pattern="0-dimensional float and int64 state",
        build=_built(ZeroDimState),
        methods=(MethodSpec("step", (_randn(3),)), MethodSpec("read", (_randn(3),))),
        shared=("t", "n"),
    ),
    Case(
        name="ping_pong_swap",
        pattern="double buffering: one state buffer copied into another and swapped through a clone",
        build=_built(PingPong),
        methods=(MethodSpec("write", (_randn(4),)), MethodSpec("swap", ()), MethodSpec("read", (_randn(4),))),
        shared=("front", "back"),
    ),
    Case(
        name="private_and_shared",
        pattern="shared state plus an undeclared private counter in each method",
        build=_built(PrivateAndShared),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("h",),
    ),
    Case(
        name="streaming_normalizer",
        pattern="running mean/var updated under torch.no_grad from a dynamic batch, bias-corrected by an int64 count",
        build=_built(StreamingNormalizer),
        methods=(
            MethodSpec("update", (_randn(3, 4),), dynamic_shapes=({0: Dim("batch", min=1, max=8)},)),
            MethodSpec("normalize", (_randn(2, 4),), dynamic_shapes=({0: Dim("n", min=1, max=8)},)),
        ),
        shared=("mean", "var", "count"),
    ),
]
