"""Corpus: How state is written: positions as state, index_copy_, index_put_, scatter_, slice assignment, in-place ops on views, masked resets, double buffering, attribute reassignment (refused), +=, dtype conversion on write."""

from __future__ import annotations

import torch
from torch import nn
from torch.export import Dim

from pteforge.support.spec import MethodSpec

from tests.corpus.builders import REASSIGNED, built, example_inputs, i64
from tests.corpus.case import Case

_randn = example_inputs(20240612)


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


CASES: list[Case] = [
    Case(
        name="ring_buffer_position",
        pattern="int64 position state indexing index_copy_ into a ring buffer, wrapped % capacity",
        build=built(RingBuffer),
        methods=(MethodSpec("push", (_randn(1, 3),)), MethodSpec("mean", (_randn(3),))),
        shared=("buf", "pos"),
    ),
    Case(
        name="dynamic_chunk_append",
        pattern="index_copy_ of a dynamic number of rows (Dim max < rows) at a running or given offset",
        build=built(ChunkAppend),
        methods=(
            MethodSpec("append", (_randn(2, 4),), dynamic_shapes=({0: Dim("chunk", min=1, max=3)},)),
            MethodSpec(
                "write_at", (_randn(2, 4), i64(3)),
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
        build=built(IndexPutTable),
        methods=(
            MethodSpec("update", (i64(1, 4), _randn(2, 4)), input_ranges={0: (0, 5)}),
            MethodSpec("assign", (i64(0, 5), _randn(2, 4)), input_ranges={0: (0, 5)}),
            MethodSpec("accumulate", (i64(2, 2), _randn(2, 4)), input_ranges={0: (0, 5)}),
        ),
        shared=("table",),
    ),
    Case(
        name="scatter_state",
        pattern="scatter_add_ histogram, scatter_ of a scalar, out-of-place scatter copied back",
        build=built(ScatterState),
        methods=(
            MethodSpec("count", (i64(0, 3, 3),), input_ranges={0: (0, 4)}),
            MethodSpec("mark", (torch.tensor([[1], [4]]),), input_ranges={0: (0, 4)}),
            MethodSpec("place", (torch.tensor([[2], [0]]), _randn(2, 1)), input_ranges={0: (0, 4)}),
        ),
        shared=("grid",),
    ),
    Case(
        name="fixed_slice_assign",
        pattern="fixed-size slice assignment within bounds: buf[2:5] = x, buf[-2:] = x, grid[:, 1:3] = x",
        build=built(FixedSliceAssign),
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
        build=built(ViewInPlace),
        methods=(
            MethodSpec("bump_column", (_randn(3),)),
            MethodSpec("double_rows", (_randn(3),)),
            MethodSpec("edit_rows", (_randn(4),)),
            MethodSpec("sub_transposed", (_randn(3),)),
        ),
        shared=("buf",),
    ),
    Case(
        name="attribute_reassign",
        pattern="state updated by attribute reassignment self.h = self.h * 0.5 + x (not in place)",
        build=built(AttributeReassign),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("h",),
        backends=(),
        refused={backend: REASSIGNED for backend in ("portable", "xnnpack")},
    ),
    Case(
        name="augmented_assign",
        pattern="state accumulated with += (self.acc += x; self.count += 1)",
        build=built(AugmentedAssign),
        methods=(MethodSpec("observe", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("acc", "count"),
    ),
    Case(
        name="dtype_conversion",
        pattern="float state updated from int64 / int32 / bool inputs (add_, copy_ converting)",
        build=built(DtypeConversion),
        methods=(
            MethodSpec("add_counts", (i64(1, 2, 3),), input_ranges={0: (0, 100)}),
            MethodSpec("set_from_int", (torch.tensor([4, -5, 6], dtype=torch.int32),), input_ranges={0: (-100, 100)}),
            MethodSpec("add_mask", (torch.tensor([True, False, True]),)),
        ),
        shared=("total",),
    ),
    Case(
        name="masked_row_reset",
        pattern="batched state with finished rows reset by a bool mask: masked_fill_ and where(done, h0, h)",
        build=built(MaskedRowReset),
        methods=(
            MethodSpec("step", (_randn(3, 4),)),
            MethodSpec("reset_rows", (torch.tensor([True, False, True]),)),
            MethodSpec("reset_rows_to_init", (torch.tensor([False, True, False]),)),
        ),
        shared=("h",),
    ),
    Case(
        name="ping_pong_swap",
        pattern="double buffering: one state buffer copied into another and swapped through a clone",
        build=built(PingPong),
        methods=(MethodSpec("write", (_randn(4),)), MethodSpec("swap", ()), MethodSpec("read", (_randn(4),))),
        shared=("front", "back"),
    ),
]
