"""Corpus: patterns other projects' test suites exercise, rewritten as small stateful
models: PyTorch's export tests (buffer and input mutation, submodules called several
times, torch.cond over state, aliasing, int/bool buffers, unbounded Dims), ExecuTorch's
exir and LLM-module tests (reinplacing, memory planning, emission, its KV cache and
multi-entry-point state), and Hugging Face transformers' cache utilities (static and
sliding-window caches).

Each entry's `pattern` names the test it is modelled on. The models are written for this
corpus; none is copied from those suites.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from pteforge.support.spec import MethodSpec

from tests.corpus.builders import built, example_inputs, i64
from tests.corpus.case import Case

_randn = example_inputs(20240801)

_BOTH = ("portable", "xnnpack")


def _refused(pattern: str) -> dict[str, str]:
    return {backend: pattern for backend in _BOTH}


# ======================================================================================
# PyTorch: test/export/test_export.py, test_unflatten.py, test_torchbind.py, AOTI tests
# ======================================================================================

class BufferBumpedEachCall(nn.Module):
    """`forward` bumps a buffer by one and reads it; another method only reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("offset", torch.randn(4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.offset.add_(1)
        return self.offset + x

    def scaled(self, x: torch.Tensor) -> torch.Tensor:
        return self.offset * x


class InputViewMutation(nn.Module):
    """The argument is written through a view of another shape and returned; a buffer
    accumulates what it became."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("column_sums", torch.zeros(4))

    def bump(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # x [12], y [1]
        x.view(3, 2, -1).add_(y)
        self.column_sums.add_(x.view(3, 4).sum(0))
        return x

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.column_sums + x


class _Tally(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("calls", torch.zeros(1))
        self.register_buffer("last", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls.add_(1)
        self.last.copy_(torch.tanh(self.lin(x) + self.last))
        return self.last * 1.0


class SubmoduleCalledRepeatedly(nn.Module):
    """One stateful submodule called three times in one method and once in another: each
    call sees the previous call's write."""

    def __init__(self) -> None:
        super().__init__()
        self.tally = _Tally()

    def step(self, x: torch.Tensor) -> torch.Tensor:
        y = self.tally(x)
        y = self.tally(y * 0.5)
        return self.tally(y + x) + self.tally.calls

    def once(self, x: torch.Tensor) -> torch.Tensor:
        return self.tally(x)


class _Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("seen", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.add_(x)
        return self.seen * 0.5


class SharedInSequential(nn.Module):
    """The same stateful module instance placed twice in an nn.Sequential: its buffer is
    reachable as net.0.seen and net.2.seen."""

    def __init__(self) -> None:
        super().__init__()
        counter = _Counter()
        self.net = nn.Sequential(counter, nn.ReLU(), counter)

    def step(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class _Writer(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.memory.mul_(0.5).add_(x)
        return self.memory.sum().reshape(1)


class _Reader(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.memory * x


class BufferSharedBetweenSubmodules(nn.Module):
    """Two sibling submodules register the same tensor as their buffer: one writes it,
    the other reads it."""

    def __init__(self) -> None:
        super().__init__()
        memory = torch.zeros(4)
        self.writer = _Writer()
        self.reader = _Reader()
        self.writer.register_buffer("memory", memory)
        self.reader.register_buffer("memory", memory)

    def write(self, x: torch.Tensor) -> torch.Tensor:
        return self.writer(x)

    def read(self, x: torch.Tensor) -> torch.Tensor:
        return self.reader(x)


class CondOverState(nn.Module):
    """torch.cond whose predicate is computed from a state buffer; one branch adds a
    frozen parameter, the other a constant buffer, as bound methods."""

    def __init__(self) -> None:
        super().__init__()
        self.param = nn.Parameter(torch.randn(2, 3), requires_grad=False)
        self.register_buffer("bias", torch.randn(2, 3))
        self.register_buffer("count", torch.zeros(1))

    def _with_param(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.param

    def _with_bias(self, x: torch.Tensor) -> torch.Tensor:
        return x - self.bias

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [2, 3]
        out = torch.cond(self.count[0] >= 2, self._with_param, self._with_bias, (x,))
        self.count.add_(1)
        return out

    def reset(self) -> torch.Tensor:
        self.count.zero_()
        return self.count.clone()


class CondWritesBufferInBranch(nn.Module):
    """torch.cond whose true branch writes a buffer in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(3))

    def step(self, flag: torch.Tensor, x: torch.Tensor) -> torch.Tensor:  # bool [], [3]
        def accumulate(x: torch.Tensor) -> torch.Tensor:
            self.acc.add_(x)
            return self.acc.clone()

        def skip(x: torch.Tensor) -> torch.Tensor:
            return self.acc * 1.0

        return torch.cond(flag, accumulate, skip, (x,))


class PythonIfOnState(nn.Module):
    """A Python `if` on a buffer's value chooses whether to clear another buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("acc", torch.zeros(3))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.count.add_(1)
        if self.count[0] > 3:
            self.acc.zero_()
            self.count.zero_()
        self.acc.add_(x)
        return self.acc.clone()


class WhereOnState(nn.Module):
    """The same choice as PythonIfOnState, written with torch.where: both branches are
    computed and the state is written with the selected one."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("acc", torch.zeros(3))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.count.add_(1)
        full = self.count > 3
        self.acc.copy_(torch.where(full, torch.zeros_like(self.acc), self.acc) + x)
        self.count.copy_(torch.where(full, torch.zeros_like(self.count), self.count))
        return self.acc.clone()


class ViewsOfStateWritten(nn.Module):
    """Views of a buffer kept in local variables and written through several times; a
    view of the state returned."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("flat", torch.zeros(8))
        self.register_buffer("grid", torch.zeros(3, 3))

    def write_rows(self, x: torch.Tensor) -> torch.Tensor:  # [4]
        rows = self.flat.view(2, 4)
        rows[0].mul_(0.5)
        rows[1] = x
        return rows

    def write_corner(self, x: torch.Tensor) -> torch.Tensor:  # [2, 2]
        corner = self.grid.unsqueeze(0)[:, 1:, 1:]
        corner.copy_(x.unsqueeze(0))
        return self.flat.view(4, 2).t() * 2


class DiagonalOfStateWritten(nn.Module):
    """The diagonal of a state matrix, a view, kept in a local and updated in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("grid", torch.zeros(3, 3))

    def bump_diagonal(self, x: torch.Tensor) -> torch.Tensor:  # [3]
        diagonal = self.grid.diagonal()
        diagonal.add_(x)
        return self.grid.sum(0)

    def read(self, x: torch.Tensor) -> torch.Tensor:  # [3, 3]
        return self.grid @ x


class NarrowIntegerAndBoolState(nn.Module):
    """int32, int8 and bool buffers updated with integer and logical in-place ops."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int32))
        self.register_buffer("level", torch.zeros(4, dtype=torch.int8))
        self.register_buffer("ever_positive", torch.zeros(4, dtype=torch.bool))

    def observe(self, x: torch.Tensor) -> torch.Tensor:  # float [4]
        self.steps.add_(1)
        self.ever_positive.logical_or_(x > 0)
        self.level.copy_(torch.clamp(self.level + (x > 0).to(torch.int8) - (x < 0).to(torch.int8), -3, 3))
        return self.level.to(torch.float32) + self.steps.to(torch.float32)

    def flags(self, mask: torch.Tensor) -> torch.Tensor:  # bool [4]
        self.ever_positive.logical_and_(mask)
        return self.ever_positive.clone()

    def count(self) -> torch.Tensor:
        return self.ever_positive.sum().reshape(1) + self.steps


class DynamicAppend(nn.Module):
    """Adds a variable number of rows to a running sum."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def add_rows(self, rows: torch.Tensor) -> torch.Tensor:  # [n, 4]
        self.total.add_(rows.sum(0))
        return self.total.clone()


class TrainingBatchNormStats(nn.Module):
    """F.batch_norm with training=True on an eval-mode module: the running mean and
    variance buffers are updated in place by the op; num_batches_tracked (int64, 0-d)
    counts the batches."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(4))
        self.register_buffer("running_var", torch.ones(4))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.int64))

    def update(self, x: torch.Tensor) -> torch.Tensor:  # [n, 4]
        self.num_batches_tracked.add_(1)
        return F.batch_norm(x, self.running_mean, self.running_var, training=True, momentum=0.25)

    def normalize(self, x: torch.Tensor) -> torch.Tensor:  # [2, 4]
        return F.batch_norm(x, self.running_mean, self.running_var, training=False)

    def batches(self) -> torch.Tensor:
        return self.num_batches_tracked.clone()


class PythonIntCounter(nn.Module):
    """A plain Python int attribute counts the calls (`self.calls += 1`)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.register_buffer("acc", torch.zeros(4))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        self.acc.add_(x)
        return self.acc * self.calls


class ParameterUpdatedInPlace(nn.Module):
    """An nn.Parameter updated in place under torch.no_grad (an online update)."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))

    def adapt(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            self.scale.mul_(0.9).add_(0.1 * x)
        return self.scale * x

    def apply_scale(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * x


class TensorQueue(nn.Module):
    """A FIFO of rows in a buffer with int64 head and tail counters: push, pop, size."""

    capacity = 4

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("items", torch.zeros(self.capacity, 3))
        self.register_buffer("head", torch.zeros(1, dtype=torch.int64))
        self.register_buffer("tail", torch.zeros(1, dtype=torch.int64))

    def push(self, row: torch.Tensor) -> torch.Tensor:  # [1, 3]
        self.items.index_copy_(0, self.tail % self.capacity, row)
        self.tail.add_(1)
        # A full queue drops its oldest row.
        self.head.copy_(torch.maximum(self.head, self.tail - self.capacity))
        return self.tail - self.head

    def pop(self) -> torch.Tensor:
        row = self.items.index_select(0, self.head % self.capacity)
        nonempty = self.tail > self.head
        self.head.add_(nonempty.to(torch.int64))
        return torch.where(nonempty, row, torch.zeros_like(row))

    def size(self) -> torch.Tensor:
        return self.tail - self.head


class ListInputs(nn.Module):
    """A method taking a list of tensors, another a tuple; tuple and list outputs."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))

    def add_all(self, xs: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        for x in xs:
            self.acc.add_(x)
        return self.acc.clone(), torch.stack(xs).sum(0)

    def blend(self, pair: tuple[torch.Tensor, torch.Tensor]) -> list[torch.Tensor]:
        a, b = pair
        self.acc.mul_(0.5).add_(a * b)
        return [self.acc * 2, a - self.acc]


class DictInputs(nn.Module):
    """A method taking a dict of tensors and returning a dict, and a nested (y, (h, c))
    output from a tuple input."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("h", torch.zeros(4))
        self.register_buffer("c", torch.zeros(4))

    def update(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        self.h.mul_(inputs["decay"]).add_(inputs["x"])
        return {"h": self.h.clone(), "norm": self.h.abs().sum().reshape(1)}

    def lstm_like(self, x: torch.Tensor, hc: tuple[torch.Tensor, torch.Tensor]):
        h, c = hc
        self.c.copy_(torch.tanh(c + x))
        self.h.copy_(torch.sigmoid(h) * self.c)
        return self.h * 2, (self.h.clone(), self.c.clone())


# ======================================================================================
# ExecuTorch: exir tests and extension/llm/modules tests
# ======================================================================================

class PositionSliceKVCache(nn.Module):
    """ExecuTorch's export-friendly KV cache: kv_cache_pos starts as arange(max_seq_len);
    an update writes k_out[:, kv_cache_pos[:seq_len]] = k_val and advances every position
    by seq_len. Caches laid out [batch, seq, heads, head_dim]."""

    max_seq_len, heads, head_dim = 32, 1, 2

    def __init__(self) -> None:
        super().__init__()
        shape = (1, self.max_seq_len, self.heads, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("kv_cache_pos", torch.arange(0, self.max_seq_len), persistent=False)

    def update(self, k_val: torch.Tensor, v_val: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seq_len = k_val.shape[1]
        k_out = self.k_cache
        v_out = self.v_cache
        k_out[:, self.kv_cache_pos[:seq_len]] = k_val
        v_out[:, self.kv_cache_pos[:seq_len]] = v_val
        self.kv_cache_pos.add_(seq_len)
        return k_out, v_out

    def attend(self, q: torch.Tensor) -> torch.Tensor:  # [1, 1, heads, head_dim]
        filled = torch.arange(self.max_seq_len) < self.kv_cache_pos[0]
        scores = (q * self.k_cache).sum(-1)  # [1, seq, heads]
        scores = scores.masked_fill(~filled[None, :, None], -1e9)
        weights = torch.softmax(scores, dim=1)
        return (weights.unsqueeze(-1) * self.v_cache).sum(1)

    def reset(self) -> torch.Tensor:
        self.k_cache.zero_()
        self.v_cache.zero_()
        self.kv_cache_pos.copy_(torch.arange(0, self.max_seq_len))
        return self.kv_cache_pos[:1].clone()


class TransposedPositionSliceKVCache(nn.Module):
    """The same KV cache with transpose_cache=True ([batch, heads, seq, head_dim]), one
    token per update, and the cache's bound check written as an assert."""

    max_seq_len, heads, head_dim = 32, 2, 2

    def __init__(self) -> None:
        super().__init__()
        shape = (1, self.heads, self.max_seq_len, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("kv_cache_pos", torch.arange(0, self.max_seq_len), persistent=False)

    def update(self, k_val: torch.Tensor, v_val: torch.Tensor) -> torch.Tensor:  # [1, heads, 1, head_dim]
        seq_len = k_val.shape[2]
        assert (self.kv_cache_pos[0] + seq_len) <= self.max_seq_len
        self.k_cache[:, :, self.kv_cache_pos[:seq_len]] = k_val
        self.v_cache[:, :, self.kv_cache_pos[:seq_len]] = v_val
        self.kv_cache_pos.add_(seq_len)
        return (self.k_cache + self.v_cache).sum(-1)

    def reset(self) -> torch.Tensor:
        self.k_cache.zero_()
        self.v_cache.zero_()
        self.kv_cache_pos.copy_(torch.arange(0, self.max_seq_len))
        return self.kv_cache_pos[:1].clone()


class MultiEntryPointState(nn.Module):
    """forward / set_state / get_state over one [2, 2] state buffer: forward returns a
    view of the in-place sum, set_state broadcasts its argument, get_state returns the
    buffer itself."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [1]
        return self.state.add_(x).view(-1) * 2

    def set_state(self, new_state: torch.Tensor) -> None:  # [1]
        self.state.copy_(new_state)

    def get_state(self) -> torch.Tensor:
        return self.state


class UserResetAndGetState(nn.Module):
    """A recurrent cell whose own methods are called reset_state and get_state."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("h", torch.zeros(1, 4))

    def step(self, x: torch.Tensor) -> torch.Tensor:  # [1, 4]
        self.h.copy_(torch.tanh(self.lin(x) + self.h))
        return self.h.clone()

    def reset_state(self) -> torch.Tensor:
        self.h.zero_()
        return self.h.clone()

    def get_state(self) -> torch.Tensor:
        return self.h.clone()


class IndexPutReinplacing(nn.Module):
    """index_put_ on a buffer (reinplaceable), a functional index_put of a buffer that is
    written afterwards (not reinplaceable), two functional index_puts of the same buffer,
    and index_put_ with accumulate=True."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.zeros(5))

    def put(self, indices: torch.Tensor, values: torch.Tensor) -> torch.Tensor:  # int64 [1], [1]
        self.state.index_put_((indices,), values)
        return self.state

    def put_copy_then_bump(self, indices: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        x = self.state.index_put((indices,), values)
        self.state.add_(1)
        return x

    def two_copies(self, indices: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = self.state.index_put((indices,), values)
        b = self.state.index_put((indices,), values * 2)
        self.state.sub_(0.5)
        return a, b

    def accumulate(self, indices: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        self.state.index_put_((indices,), values, accumulate=True)
        return self.state.clone()


class PlannedMutations(nn.Module):
    """A buffer bumped then subtracted from the input, and a one-element state written by
    index_put_ at a constant index and then read, with temporaries live around it."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("constant", torch.ones(5, 5))
        self.register_buffer("state", torch.zeros(1))

    def subtract(self, x: torch.Tensor) -> torch.Tensor:  # [5, 5]
        self.constant.add_(1)
        return x - self.constant

    def write_then_read(self, x: torch.Tensor) -> torch.Tensor:  # [1]
        self.state.index_put_([torch.tensor([0])], x)
        y = x + self.state
        return x * y


class InitializedPositions(nn.Module):
    """An int64 buffer with a non-zero initial value (arange) advanced each call and
    returned as is."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache_pos", torch.arange(0, 10))

    def advance(self, x: torch.Tensor) -> torch.Tensor:  # [10]
        self.cache_pos.add_(1)
        return self.cache_pos

    def positions(self, x: torch.Tensor) -> torch.Tensor:  # [10]
        return x * self.cache_pos.to(torch.float32)


class ViewChains(nn.Module):
    """Views of frozen parameters and of the input multiplied together, two views of one
    result returned, the result accumulated into state; and a view of dynamic size."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.rand(5, 6), requires_grad=False)
        self.weight2 = nn.Parameter(torch.rand(30), requires_grad=False)
        self.register_buffer("acc", torch.zeros(30))
        self.register_buffer("total", torch.zeros(1))

    def mix(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # [5, 6]
        v1 = self.weight.view(6, 5)
        v2 = x.view(6, 5)
        v3 = (v1 * v2).view(30)
        v4 = v3 * self.weight2
        self.acc.add_(v4)
        return v4.view(6, 5), self.acc.view(2, 15)

    def column(self, x: torch.Tensor) -> torch.Tensor:  # [n, 6]
        y = (x + x).view(-1, 1)
        self.total.add_(y.sum())
        return 2 * y + self.total


class PositionIndexedKVCache(nn.Module):
    """A [batch, seq, heads, head_dim] KV cache written at an input position with
    index_copy_, and a reset method copying full-size zero tensors into both caches."""

    length, heads, head_dim = 8, 2, 4

    def __init__(self) -> None:
        super().__init__()
        shape = (1, self.length, self.heads, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def update(self, input_pos: torch.Tensor, k_val: torch.Tensor, v_val: torch.Tensor) -> torch.Tensor:
        self.k_cache.index_copy_(1, input_pos, k_val)
        self.v_cache.index_copy_(1, input_pos, v_val)
        return (self.k_cache + self.v_cache).sum(dim=-1)

    def reset(self, k_zeros: torch.Tensor, v_zeros: torch.Tensor) -> None:
        self.k_cache.copy_(k_zeros)
        self.v_cache.copy_(v_zeros)


class ReturnedStaticCache(nn.Module):
    """index_copy_ of new keys and values at cache_position along the sequence dimension
    of [batch, heads, seq, head_dim] buffers, returning both buffers themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 2, 4, 8))
        self.register_buffer("values", torch.zeros(1, 2, 4, 8))

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor,
               cache_position: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.keys.index_copy_(2, cache_position, key_states)
        self.values.index_copy_(2, cache_position, value_states)
        return self.keys, self.values


class CondWithMatmulAndState(nn.Module):
    """torch.cond on a bool input choosing between two matmul branches over the input
    plus a state buffer; the chosen result is accumulated into state after the cond."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("bias", torch.zeros(2, 2))

    def step(self, pred: torch.Tensor, x: torch.Tensor) -> torch.Tensor:  # bool [], [2, 2]
        def doubled(y: torch.Tensor) -> torch.Tensor:
            y = y + y
            return torch.mm(y, y)

        def plain(y: torch.Tensor) -> torch.Tensor:
            return torch.mm(y, y)

        out = torch.cond(pred, doubled, plain, (torch.tanh(x + self.bias),))
        self.bias.copy_(torch.tanh(self.bias + out))
        return out


class RingKVCache(nn.Module):
    """A ring KV cache of `window` slots: a token at absolute position p goes to slot
    p % window, and a positions buffer (-1 = empty) records which position each slot
    holds, from which the attention mask is built."""

    window, dim = 4, 4

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(1, self.window, self.dim))
        self.register_buffer("v_cache", torch.zeros(1, self.window, self.dim))
        self.register_buffer("cache_positions", torch.full((self.window,), -1, dtype=torch.int64))

    def update(self, input_pos: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # [1], [1, 1, 4]
        slot = input_pos % self.window
        self.k_cache.index_copy_(1, slot, k)
        self.v_cache.index_copy_(1, slot, v)
        self.cache_positions.index_copy_(0, slot, input_pos)
        return self.cache_positions.clone()

    def attend(self, input_pos: torch.Tensor, q: torch.Tensor) -> torch.Tensor:  # [1], [1, 1, 4]
        held = self.cache_positions
        visible = (held >= 0) & (held <= input_pos) & (input_pos - held < self.window)
        scores = (q @ self.k_cache.transpose(1, 2)).masked_fill(~visible, -1e9)
        return torch.softmax(scores, dim=-1) @ self.v_cache


# ======================================================================================
# Hugging Face transformers: cache_utils (StaticCache, sliding-window caches)
# ======================================================================================

class _StaticLayer(nn.Module):
    def __init__(self, heads: int, max_cache_len: int, head_dim: int) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, heads, max_cache_len, head_dim), persistent=False)
        self.register_buffer("values", torch.zeros(1, heads, max_cache_len, head_dim), persistent=False)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor,
               cache_position: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        if cache_position is None:
            cache_position = torch.arange(key_states.shape[-2])
        self.keys.index_copy_(2, cache_position, key_states)
        self.values.index_copy_(2, cache_position, value_states)
        return self.keys, self.values


class StaticCacheModel(nn.Module):
    """Two StaticCache-style layers in an nn.ModuleList: prefill writes n tokens from
    position 0 (cache_position defaulting to arange(n)), decode one token at a given
    cache_position; causal attention over the whole cache; reset zeroes every layer;
    get_seq_length counts the occupied slots."""

    heads, max_cache_len, head_dim = 2, 8, 4

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([_StaticLayer(self.heads, self.max_cache_len, self.head_dim) for _ in range(2)])

    def _attend(self, keys: torch.Tensor, values: torch.Tensor, query: torch.Tensor,
                cache_position: torch.Tensor) -> torch.Tensor:
        causal = torch.arange(self.max_cache_len)[None, :] <= cache_position[:, None]  # [n, max_cache_len]
        return F.scaled_dot_product_attention(query, keys, values, attn_mask=causal)

    def prefill(self, key_states: torch.Tensor, value_states: torch.Tensor) -> torch.Tensor:  # [1, 2, n, 4]
        cache_position = torch.arange(key_states.shape[-2])
        out = key_states
        for layer in self.layers:
            keys, values = layer.update(key_states, value_states)
            out = self._attend(keys, values, out, cache_position)
        return out

    def decode(self, key_states: torch.Tensor, value_states: torch.Tensor,
               cache_position: torch.Tensor) -> torch.Tensor:  # [1, 2, 1, 4], int64 [1]
        out = key_states
        for layer in self.layers:
            keys, values = layer.update(key_states, value_states, cache_position)
            out = self._attend(keys, values, out, cache_position)
        return out

    def reset(self) -> None:
        for layer in self.layers:
            layer.keys.zero_()
            layer.values.zero_()

    def get_seq_length(self) -> torch.Tensor:
        return self.layers[0].keys[0, 0].any(dim=-1).sum()


class IndexAssignStaticCache(nn.Module):
    """The StaticCache update's fallback for devices without index_copy_:
    keys[:, :, cache_position] = key_states (an index_put_ on the cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 2, 6, 4))
        self.register_buffer("values", torch.zeros(1, 2, 6, 4))

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor,
               cache_position: torch.Tensor) -> torch.Tensor:  # [1, 2, 1, 4], int64 [1]
        self.keys[:, :, cache_position] = key_states
        self.values[:, :, cache_position] = value_states
        return self.keys.sum(-1) - self.values.sum(-1)

    def occupied(self) -> torch.Tensor:
        return self.keys[0, 0].any(dim=-1).sum().reshape(1)


class RollingSlidingWindowCache(nn.Module):
    """The sliding-window cache update of transformers 4.4x: once the window is full,
    every slot moves one place left through a gather of shifted indices, then the new
    token is written at cache_position clamped to the last slot; the result is copied
    back into the cache (zero_() then +=)."""

    window, heads, head_dim = 4, 1, 4

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, self.heads, self.window, self.head_dim))
        self.register_buffer("values", torch.zeros(1, self.heads, self.window, self.head_dim))

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor,
               cache_position: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # [1, 1, 1, 4], int64 [1]
        slicing = torch.ones(self.window, dtype=torch.long).cumsum(0)
        cache_position = cache_position.clamp(0, self.window - 1)
        to_shift = cache_position >= self.window - 1
        indices = (slicing + to_shift[-1].int() - 1) % self.window
        k_out = self.keys[:, :, indices]
        v_out = self.values[:, :, indices]
        k_out[:, :, cache_position] = key_states
        v_out[:, :, cache_position] = value_states
        self.keys.zero_()
        self.values.zero_()
        self.keys += k_out
        self.values += v_out
        return k_out, v_out


class IntCountedSlidingWindow(nn.Module):
    """transformers' StaticSlidingWindowLayer: a Python int cumulative_length decides
    whether the window is full (then roll and write the last slot) or not (index_copy_
    at cache_position)."""

    window = 4

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 1, self.window, 4))
        self.cumulative_length = 0

    def update(self, key_states: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        is_full = self.cumulative_length >= self.window
        self.cumulative_length += key_states.shape[-2]
        if is_full:
            rolled = self.keys.roll(-1, dims=-2)
            rolled[:, :, -1:] = key_states
            self.keys.copy_(rolled)
        else:
            self.keys.index_copy_(2, cache_position, key_states)
        return self.keys.clone()


class CrossAttentionCache(nn.Module):
    """An encoder-decoder cache: cross-attention keys and values written once per
    sequence, with a bool is_updated flag; the self-attention cache grows per step at a
    position counter; attention uses the cross cache only once it is filled."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cross_k", torch.zeros(1, 3, 4))
        self.register_buffer("cross_v", torch.zeros(1, 3, 4))
        self.register_buffer("is_updated", torch.zeros(1, dtype=torch.bool))
        self.register_buffer("self_k", torch.zeros(1, 16, 4))
        self.register_buffer("pos", torch.zeros(1, dtype=torch.int64))

    def encode(self, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # [1, 3, 4] each
        self.cross_k.copy_(k)
        self.cross_v.copy_(v)
        self.is_updated.fill_(True)
        self.pos.zero_()
        return self.is_updated.clone()

    def decode(self, q: torch.Tensor) -> torch.Tensor:  # [1, 1, 4]
        self.self_k.index_copy_(1, self.pos % 16, q)
        self.pos.add_(1)
        scores = q @ self.cross_k.transpose(1, 2)  # [1, 1, 3]
        cross = torch.softmax(scores, dim=-1) @ self.cross_v
        return torch.where(self.is_updated, cross, torch.zeros_like(cross)) + self.self_k.sum(1, keepdim=True)


_SEQ_LEN = Dim("seq_len", min=1, max=2)
_TOKENS = Dim("tokens", min=1, max=4)

_UNBOUNDED = r"no upper bound"
_REACHABLE_TWICE = r"the same state buffer is reachable as"


CASES: list[Case] = [
    # --- PyTorch -----------------------------------------------------------------------
    Case(
        name="pt_buffer_bumped_in_forward",
        pattern="self.buf.add_(1); return self.buf + x in `forward`, read by a second method "
                "(modelled on PyTorch's AOTInductor test_buffer_mutation_1 and test_export's buffer-mutation tests)",
        build=built(BufferBumpedEachCall),
        methods=(MethodSpec("forward", (_randn(4, 4),)), MethodSpec("scaled", (_randn(4, 4),))),
        shared=("offset",),
    ),
    Case(
        name="pt_input_view_mutation",
        pattern="the argument written through a view of another shape and returned: x.view(3, 2, -1).add_(y) "
                "(modelled on PyTorch's test_export_input_mutation_static_shape)",
        build=built(InputViewMutation),
        methods=(MethodSpec("bump", (_randn(12), _randn(1))), MethodSpec("read", (_randn(4),))),
        shared=("column_sums",),
    ),
    Case(
        name="pt_submodule_called_repeatedly",
        pattern="one stateful submodule called three times in a method, each call seeing the previous write "
                "(modelled on PyTorch's test_unflatten.py tests of submodules called several times)",
        build=built(SubmoduleCalledRepeatedly),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("once", (_randn(4),))),
        shared=("tally",),
    ),
    Case(
        name="pt_shared_instance_in_sequential",
        pattern="the same stateful module instance twice in an nn.Sequential, its buffer reachable under two "
                "paths (modelled on PyTorch's test_unflatten_shared_submodule); refused naming both paths",
        build=built(SharedInSequential),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("net",),
        backends=(),
        refused=_refused(_REACHABLE_TWICE),
    ),
    Case(
        name="pt_buffer_shared_by_siblings",
        pattern="nested modules sharing one buffer tensor, written by one and read by the other "
                "(modelled on PyTorch's test_unflatten.py shared-state tests); refused naming both paths",
        build=built(BufferSharedBetweenSubmodules),
        methods=(MethodSpec("write", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("writer", "reader"),
        backends=(),
        refused=_refused(_REACHABLE_TWICE),
    ),
    Case(
        name="pt_cond_over_state",
        pattern="torch.cond with a predicate computed from a state buffer, branches reading a parameter and a "
                "buffer as bound methods (modelled on PyTorch's test_cond_buffers)",
        build=built(CondOverState),
        methods=(MethodSpec("step", (_randn(2, 3),)), MethodSpec("reset", ())),
        shared=("count",),
    ),
    Case(
        name="pt_cond_branch_writes_buffer",
        pattern="torch.cond whose branch writes a buffer in place (modelled on PyTorch's export tests of "
                "mutation inside cond branches); torch.export refuses it: refused naming torch.cond",
        build=built(CondWritesBufferInBranch),
        methods=(MethodSpec("step", (torch.tensor(True), _randn(3))),),
        shared=("acc",),
        backends=(),
        refused=_refused(r"torch\.cond"),
    ),
    Case(
        name="pt_python_if_on_state",
        pattern="a buffer cleared inside a Python `if` on another buffer's value (modelled on PyTorch's "
                "export tests of data-dependent control flow); refused as data-dependent control flow",
        build=built(PythonIfOnState),
        methods=(MethodSpec("step", (_randn(3),)),),
        shared=("count", "acc"),
        backends=(),
        refused=_refused(r"data-dependent control flow|depends on tensor values"),
    ),
    Case(
        name="pt_where_on_state",
        pattern="the same branch on state written with torch.where: both values computed, state copied from "
                "the selected one (the rewrite PyTorch's export docs give for data-dependent branches)",
        build=built(WhereOnState),
        methods=(MethodSpec("step", (_randn(3),)),),
        shared=("count", "acc"),
    ),
    Case(
        name="pt_views_of_state_written",
        pattern="views of buffers held in locals and written through (view rows, an unsqueezed slice), "
                "a view of state returned (modelled on PyTorch's export tests of mutation through views)",
        build=built(ViewsOfStateWritten),
        methods=(
            MethodSpec("write_rows", (_randn(4),)),
            MethodSpec("write_corner", (_randn(2, 2),)),
        ),
        shared=("flat", "grid"),
    ),
    Case(
        name="pt_diagonal_of_state_written",
        pattern="grid.diagonal().add_(x): the diagonal view of a state matrix written in place "
                "(modelled on PyTorch's export tests of mutation through views)",
        build=built(DiagonalOfStateWritten),
        methods=(MethodSpec("bump_diagonal", (_randn(3),)), MethodSpec("read", (_randn(3, 3),))),
        shared=("grid",),
    ),
    Case(
        name="pt_int_and_bool_buffers",
        pattern="int32 counter, int8 level clamped in place, bool flags updated with logical_or_ / logical_and_ "
                "(modelled on PyTorch's export tests of integer and bool buffers)",
        build=built(NarrowIntegerAndBoolState),
        methods=(
            MethodSpec("observe", (_randn(4),)),
            MethodSpec("flags", (torch.tensor([True, False, True, True]),)),
            MethodSpec("count", ()),
        ),
        shared=("steps", "level", "ever_positive"),
    ),
    Case(
        name="pt_unbounded_dim",
        pattern="a Dim without max (Dim('rows', min=1)) on a method writing state (modelled on PyTorch's "
                "test_export dynamic-shape tests, which use unbounded Dims); refused: no upper bound",
        build=built(DynamicAppend),
        methods=(MethodSpec("add_rows", (_randn(3, 4),), dynamic_shapes=({0: Dim("rows", min=1)},)),),
        shared=("total",),
        backends=(),
        refused=_refused(_UNBOUNDED),
    ),
    Case(
        name="pt_dim_dynamic",
        pattern="Dim.DYNAMIC on a method writing state (modelled on PyTorch's test_export Dim.DYNAMIC tests); "
                "refused: no upper bound",
        build=built(DynamicAppend),
        methods=(MethodSpec("add_rows", (_randn(3, 4),), dynamic_shapes=({0: Dim.DYNAMIC},)),),
        shared=("total",),
        backends=(),
        refused=_refused(_UNBOUNDED),
    ),
    Case(
        name="pt_batch_norm_training_stats",
        pattern="F.batch_norm(training=True) updating running_mean / running_var in place, int64 0-d "
                "num_batches_tracked, dynamic batch (modelled on PyTorch's test_buffer_util BatchNorm buffers)",
        build=built(TrainingBatchNormStats),
        methods=(
            MethodSpec("update", (_randn(3, 4),), dynamic_shapes=({0: Dim("batch", min=2, max=4)},)),
            MethodSpec("normalize", (_randn(2, 4),)),
            MethodSpec("batches", ()),
        ),
        shared=("running_mean", "running_var", "num_batches_tracked"),
    ),
    Case(
        name="pt_python_int_attribute_counter",
        pattern="a Python int attribute counter changed by a method (self.calls += 1), baked into the graph as "
                "a constant (modelled on PyTorch's test_export specialized-attribute tests); refused naming the "
                "attribute",
        build=built(PythonIntCounter),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("acc",),
        backends=(),
        refused=_refused(r"attribute"),
    ),
    Case(
        name="pt_parameter_updated_in_place",
        pattern="an nn.Parameter updated in place under torch.no_grad (modelled on PyTorch's export tests of "
                "parameter mutation); refused naming the parameter",
        build=built(ParameterUpdatedInPlace),
        methods=(MethodSpec("adapt", (_randn(4),)), MethodSpec("apply_scale", (_randn(4),))),
        backends=(),
        refused=_refused(r"parameter"),
    ),
    Case(
        name="pt_tensor_queue",
        pattern="a FIFO queue of rows with int64 head / tail counters: push, pop, size (modelled on PyTorch's "
                "test_torchbind _TensorQueue, its state held in buffers instead of a script object)",
        build=built(TensorQueue),
        methods=(MethodSpec("push", (_randn(1, 3),)), MethodSpec("pop", ()), MethodSpec("size", ())),
        shared=("items", "head", "tail"),
    ),
    Case(
        name="pt_list_and_tuple_inputs",
        pattern="a list-of-tensors input and a tuple input, tuple and list outputs (modelled on ExecuTorch's "
                "test_emit test_list_type and PyTorch's exportdb list_unpack case)",
        build=built(ListInputs),
        methods=(
            MethodSpec("add_all", ([_randn(4), _randn(4), _randn(4)],)),
            MethodSpec("blend", ((_randn(4), _randn(4)),)),
        ),
        shared=("acc",),
    ),
    Case(
        name="pt_dict_input_nested_output",
        pattern="a dict-of-tensors input and dict output, a tuple (h, c) input with a nested (y, (h, c)) output "
                "(modelled on PyTorch's exportdb dictionary case and ExecuTorch's test_emit test_nested_return)",
        build=built(DictInputs),
        methods=(
            MethodSpec("update", ({"x": _randn(4), "decay": torch.tensor([0.5])},)),
            MethodSpec("lstm_like", (_randn(4), (_randn(4), _randn(4)))),
        ),
        shared=("h", "c"),
    ),
    # --- ExecuTorch --------------------------------------------------------------------
    Case(
        name="et_kv_cache_position_slice",
        pattern="k_out[:, self.kv_cache_pos[:seq_len]] = k_val then self.kv_cache_pos.add_(seq_len), dynamic "
                "seq_len, caches returned as they are (modelled on ExecuTorch's extension/llm/modules "
                "test_kv_cache KVCache.update)",
        build=built(PositionSliceKVCache),
        methods=(
            MethodSpec("update", (_randn(1, 2, 1, 2), _randn(1, 2, 1, 2)),
                       dynamic_shapes=({1: _SEQ_LEN}, {1: _SEQ_LEN})),
            MethodSpec("attend", (_randn(1, 1, 1, 2),)),
            MethodSpec("reset", ()),
        ),
        shared=("k_cache", "v_cache", "kv_cache_pos"),
    ),
    Case(
        name="et_kv_cache_transposed",
        pattern="ExecuTorch's KVCache with transpose_cache=True: k_cache[:, :, kv_cache_pos[:1]] = k_val, the "
                "bound check as an assert on state (modelled on ExecuTorch's test_kv_cache)",
        build=built(TransposedPositionSliceKVCache),
        methods=(
            MethodSpec("update", (_randn(1, 2, 1, 2), _randn(1, 2, 1, 2))),
            MethodSpec("reset", ()),
        ),
        shared=("k_cache", "v_cache", "kv_cache_pos"),
    ),
    Case(
        name="et_multi_entry_point_state",
        pattern="forward / set_state / get_state over one buffer: forward returns state.add_(x).view(-1) * 2, "
                "get_state returns the buffer (modelled on ExecuTorch's test_memory_planning "
                "MultiEntryPointStatefulModel and test_multi_state_plan)",
        build=built(MultiEntryPointState),
        methods=(
            MethodSpec("forward", (torch.ones(1),)),
            MethodSpec("set_state", (torch.zeros(1),)),
            MethodSpec("get_state", ()),
        ),
        shared=("state",),
    ),
    Case(
        name="et_user_reset_state_get_state",
        pattern="a module's own methods named reset_state and get_state (modelled on ExecuTorch's "
                "multi-entry-point stateful models, whose state methods users name this way)",
        build=built(UserResetAndGetState),
        methods=(MethodSpec("step", (_randn(1, 4),)), MethodSpec("reset_state", ()), MethodSpec("get_state", ())),
        shared=("h",),
    ),
    Case(
        name="et_index_put_reinplacing",
        pattern="index_put_ on a buffer, a functional index_put of a buffer written afterwards, two index_puts "
                "of one buffer, accumulate=True (modelled on ExecuTorch's test_reinplace_pass)",
        build=built(IndexPutReinplacing),
        methods=(
            MethodSpec("put", (i64(0), _randn(1)), input_ranges={0: (0, 4)}),
            MethodSpec("put_copy_then_bump", (i64(2), _randn(1)), input_ranges={0: (0, 4)}),
            MethodSpec("two_copies", (i64(4), _randn(1)), input_ranges={0: (0, 4)}),
            MethodSpec("accumulate", (i64(1), _randn(1)), input_ranges={0: (0, 4)}),
        ),
        shared=("state",),
    ),
    Case(
        name="et_planned_mutations",
        pattern="a buffer bumped then subtracted from the input; index_put_ at a constant index then read "
                "(modelled on ExecuTorch's test_memory_planning test_mutation_not_double_allocated and "
                "test_mutable_buffers_infinite_lifespan)",
        build=built(PlannedMutations),
        methods=(MethodSpec("subtract", (_randn(5, 5),)), MethodSpec("write_then_read", (_randn(1),))),
        shared=("constant", "state"),
    ),
    Case(
        name="et_initialized_mutable_buffer",
        pattern="an int64 buffer initialized to arange(0, 10), advanced with add_(1) and returned itself "
                "(modelled on ExecuTorch's test_emit test_initialized_mutable_buffer)",
        build=built(InitializedPositions),
        methods=(MethodSpec("advance", (_randn(10),)), MethodSpec("positions", (_randn(10),))),
        shared=("cache_pos",),
    ),
    Case(
        name="et_view_chains",
        pattern="views of frozen parameters and input multiplied, two views of one result returned, state "
                "accumulated; a view of dynamic size (modelled on ExecuTorch's test_remove_view_copy)",
        build=built(ViewChains),
        methods=(
            MethodSpec("mix", (_randn(5, 6),)),
            MethodSpec("column", (_randn(5, 6),), dynamic_shapes=({0: Dim("rows", min=1, max=10)},)),
        ),
        shared=("acc", "total"),
    ),
    Case(
        name="et_kv_cache_reset_from_inputs",
        pattern="[B, S, H, D] KV cache updated by index_copy_ at input_pos; reset(k_zeros, v_zeros) copies "
                "full-size inputs into both caches (modelled on ExecuTorch's test_memory_planning "
                "test_custom_kv_cache_shared_buffers)",
        build=built(PositionIndexedKVCache),
        methods=(
            MethodSpec("update", (i64(0), _randn(1, 1, 2, 4), _randn(1, 1, 2, 4)), input_ranges={0: (0, 7)}),
            MethodSpec("reset", (torch.zeros(1, 8, 2, 4), torch.zeros(1, 8, 2, 4))),
        ),
        shared=("k_cache", "v_cache"),
    ),
    Case(
        name="et_static_cache_returned",
        pattern="HF-style static cache: keys.index_copy_(2, cache_position, key_states), both buffers returned "
                "themselves (modelled on ExecuTorch's test_memory_planning test_custom_inplace_op_memory_aliasing)",
        build=built(ReturnedStaticCache),
        methods=(MethodSpec("update", (_randn(1, 2, 1, 8), _randn(1, 2, 1, 8), i64(1)), input_ranges={2: (0, 3)}),),
        shared=("keys", "values"),
    ),
    Case(
        name="et_cond_matmul_state",
        pattern="torch.cond on a bool input between two mm branches over input plus state, result written "
                "back to state (modelled on ExecuTorch's test_emit test_emit_cond)",
        build=built(CondWithMatmulAndState),
        methods=(MethodSpec("step", (torch.tensor(True), _randn(2, 2))),),
        shared=("bias",),
    ),
    Case(
        name="et_ring_kv_cache",
        pattern="ring KV cache: slot = pos % window, an int64 positions buffer (-1 empty) recording each "
                "slot's position, attention masked from it (modelled on ExecuTorch's test_ring_kv_cache)",
        build=built(RingKVCache),
        methods=(
            MethodSpec("update", (i64(5), _randn(1, 1, 4), _randn(1, 1, 4)), input_ranges={0: (0, 11)}),
            MethodSpec("attend", (i64(5), _randn(1, 1, 4)), input_ranges={0: (0, 11)}),
        ),
        shared=("k_cache", "v_cache", "cache_positions"),
    ),
    # --- transformers ------------------------------------------------------------------
    Case(
        name="hf_static_cache_layers",
        pattern="StaticCache layers in a ModuleList: index_copy_ at cache_position (default arange(n) for a "
                "dynamic prefill, given for decode), SDPA with a causal mask, reset() and get_seq_length() "
                "(modelled on transformers' cache_utils StaticLayer and its tests)",
        build=built(StaticCacheModel),
        methods=(
            MethodSpec("prefill", (_randn(1, 2, 3, 4), _randn(1, 2, 3, 4)),
                       dynamic_shapes=({2: _TOKENS}, {2: _TOKENS})),
            MethodSpec("decode", (_randn(1, 2, 1, 4), _randn(1, 2, 1, 4), i64(4)), input_ranges={2: (0, 7)}),
            MethodSpec("reset", ()),
            MethodSpec("get_seq_length", ()),
        ),
        shared=("layers",),
    ),
    Case(
        name="hf_static_cache_index_assign",
        pattern="StaticCache's fallback update keys[:, :, cache_position] = key_states, occupancy from "
                "keys[0, 0].any(-1).sum() (modelled on transformers' cache_utils StaticLayer.update)",
        build=built(IndexAssignStaticCache),
        methods=(
            MethodSpec("update", (_randn(1, 2, 1, 4), _randn(1, 2, 1, 4), i64(2)), input_ranges={2: (0, 5)}),
            MethodSpec("occupied", ()),
        ),
        shared=("keys", "values"),
    ),
    Case(
        name="hf_sliding_window_roll",
        pattern="sliding-window cache: shifted-index gather once full, write at the clamped cache_position, "
                "copied back with zero_() and += (modelled on transformers 4.4x SlidingWindowCache.update)",
        build=built(RollingSlidingWindowCache),
        methods=(MethodSpec("update", (_randn(1, 1, 1, 4), _randn(1, 1, 1, 4), i64(2)), input_ranges={2: (0, 9)}),),
        shared=("keys", "values"),
    ),
    Case(
        name="hf_sliding_window_int_length",
        pattern="StaticSlidingWindowLayer's Python int cumulative_length deciding roll vs index_copy_ "
                "(modelled on transformers' cache_utils); refused naming the attribute",
        build=built(IntCountedSlidingWindow),
        methods=(MethodSpec("update", (_randn(1, 1, 1, 4), i64(0)), input_ranges={1: (0, 3)}),),
        shared=("keys",),
        backends=(),
        refused=_refused(r"attribute"),
    ),
    Case(
        name="hf_cross_attention_cache",
        pattern="encoder-decoder cache: cross keys / values written once with a bool is_updated flag, a "
                "self-attention cache at an int64 position (modelled on transformers' EncoderDecoderCache)",
        build=built(CrossAttentionCache),
        methods=(
            MethodSpec("encode", (_randn(1, 3, 4), _randn(1, 3, 4))),
            MethodSpec("decode", (_randn(1, 1, 4),)),
        ),
        shared=("cross_k", "cross_v", "is_updated", "self_k", "pos"),
    ),
]
