"""Corpus entries for methods that write their arguments and for slice writes up to a
tensor's full size (the examples pteforge was founded on, and their neighbours).

Each method writes its argument the way eager PyTorch users do; after every call the
caller's tensor must hold what eager PyTorch leaves in it, on both backends, in Python
and through the C++ Session (the corpus test replays the same calls there).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from pteforge.support.spec import MethodSpec

from tests.corpus.case import Case

_GENERATOR = torch.Generator().manual_seed(20261124)


def _randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=_GENERATOR).to(dtype)


def _built(cls: type[nn.Module]):
    def build() -> nn.Module:
        torch.manual_seed(0)
        return cls().eval()

    build.__name__ = f"build_{cls.__name__}"
    return build


# --- Arguments written in place --------------------------------------------------------

class ArgumentWrites(nn.Module):
    """The input-mutation patterns of the torchdynamo discussion, with state beside them."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def relu_in_place(self, x: torch.Tensor) -> torch.Tensor:  # [2, 4]
        F.relu(x, inplace=True)
        return x.sum(0)

    def first_column(self, out: torch.Tensor, x: torch.Tensor) -> None:  # [2, 4], [2, 4]
        out[:, 0] = x[:, 0]

    def copy_into(self, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:  # [2, 4], [2, 4]
        y.copy_(x * 2 + self.total)
        return y.mean().reshape(1)

    def state_and_argument(self, x: torch.Tensor) -> torch.Tensor:  # [2, 4]
        self.total.add_(x.sum(0))
        x.mul_(0.5)
        return x  # written and returned: one tensor, as in eager

    def narrow_copy(self, x: torch.Tensor, rows: torch.Tensor) -> None:  # [4, 4], [n, 4]
        x.narrow(0, 1, rows.shape[0]).copy_(rows)


class ArgumentWriteDtypes(nn.Module):
    """Arguments of int64, bool and float16 written in place, next to state."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int64))

    def count(self, counter: torch.Tensor) -> None:  # int64 [3]
        counter.add_(self.steps + 1)
        self.steps.add_(1)

    def mask(self, flags: torch.Tensor, x: torch.Tensor) -> None:  # bool [4], float [4]
        flags.logical_or_(x > 0)

    def halve(self, h: torch.Tensor) -> torch.Tensor:  # float16 [2, 3]
        h.mul_(0.5)
        return h.float().sum().reshape(1)


class DynamicArgumentWrites(nn.Module):
    """Written arguments of dynamic size, up to their full extent."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(1))

    def scale_rows(self, x: torch.Tensor) -> torch.Tensor:  # [n, 4]
        x.mul_(self.scale)
        self.scale.add_(1)
        return x.sum().reshape(1)

    def fill_prefix(self, out: torch.Tensor, x: torch.Tensor) -> None:  # [4, 6], [4, m]
        out[:, : x.shape[1]] = x


# --- Slice writes up to the full size ----------------------------------------------------

class FullSizeSlices(nn.Module):
    """Dynamic slice writes and reads whose Dims reach the buffer's full size."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("grid", torch.zeros(5, 6))

    def write_block(self, x: torch.Tensor) -> None:  # [n, m]
        self.grid[0 : x.shape[0], 0 : x.shape[1]] = x

    def write_columns(self, x: torch.Tensor) -> None:  # [5, m]
        self.grid[:, : x.shape[1]] = x

    def write_narrow(self, x: torch.Tensor) -> None:  # [n, m]
        self.grid.narrow(0, 0, x.size(0)).narrow(1, 0, x.size(1)).copy_(x)

    def write_offset_rows(self, x: torch.Tensor) -> None:  # [n, 6]: rows 5 - n .. 4
        self.grid[5 - x.shape[0] :] = x

    def fill_block(self, x: torch.Tensor) -> None:  # [n, m]: a scalar, broadcast
        self.grid[: x.shape[0], : x.shape[1]] = 7.0

    def read_block(self, x: torch.Tensor) -> torch.Tensor:  # [n, m]
        return self.grid[: x.shape[0], : x.shape[1]] + x

    def read_narrow(self, x: torch.Tensor) -> torch.Tensor:  # [n, m]
        return self.grid.narrow(0, 0, x.size(0)).narrow(1, 0, x.size(1)) * x


class FullSizeSlices3d(nn.Module):
    """A three-dimensional cache written per head and position, up to its full size."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 4, 3))

    def write(self, x: torch.Tensor) -> None:  # [h, p, 3]
        self.cache[: x.shape[0], : x.shape[1]] = x

    def read(self, x: torch.Tensor) -> torch.Tensor:  # [2, 4, 3]
        return self.cache * x


_ROWS, _COLUMNS = Dim("rows", min=1, max=5), Dim("columns", min=1, max=6)

WRITTEN_ARGUMENT_CASES: list[Case] = [
    Case(
        name="argument_writes",
        pattern="methods that change their arguments: F.relu(x, inplace=True), out[:, 0] = x[:, 0], "
                "y.copy_(...), state and argument written by one method, written and returned, narrow().copy_",
        build=_built(ArgumentWrites),
        methods=(
            MethodSpec("relu_in_place", (_randn(2, 4),)),
            MethodSpec("first_column", (_randn(2, 4), _randn(2, 4))),
            MethodSpec("copy_into", (_randn(2, 4), _randn(2, 4))),
            MethodSpec("state_and_argument", (_randn(2, 4),)),
            MethodSpec("narrow_copy", (_randn(4, 4), _randn(2, 4)),
                       dynamic_shapes=(None, {0: Dim("n", min=1, max=3)})),
        ),
        shared=("total",),
    ),
    Case(
        name="argument_write_dtypes",
        pattern="int64, bool and float16 arguments written in place (counter.add_, flags.logical_or_, h.mul_)",
        build=_built(ArgumentWriteDtypes),
        methods=(
            MethodSpec("count", (torch.tensor([1, 2, 3]),), input_ranges={0: (-5, 5)}),
            MethodSpec("mask", (torch.tensor([True, False, False, True]), _randn(4))),
            MethodSpec("halve", (_randn(2, 3, dtype=torch.float16),)),
        ),
        shared=("steps",),
    ),
    Case(
        name="dynamic_argument_writes",
        pattern="written arguments of dynamic size: x.mul_(state) for n rows, out[:, :m] = x up to out's width",
        build=_built(DynamicArgumentWrites),
        methods=(
            MethodSpec("scale_rows", (_randn(3, 4),), dynamic_shapes=({0: Dim("n", min=1, max=6)},)),
            MethodSpec("fill_prefix", (_randn(4, 6), _randn(4, 5)),
                       dynamic_shapes=(None, {1: Dim("m", min=1, max=6)})),
        ),
        shared=("scale",),
    ),
    Case(
        name="full_size_slices",
        pattern="dynamic slice writes up to the buffer's full size: buf[0:n, 0:m] = x, buf[:, :m] = x, "
                "narrow().narrow().copy_(x), buf[5 - n:] = x, a scalar fill, and the same reads",
        build=_built(FullSizeSlices),
        methods=(
            MethodSpec("write_block", (_randn(4, 5),), dynamic_shapes=({0: _ROWS, 1: _COLUMNS},)),
            MethodSpec("write_columns", (_randn(5, 5),), dynamic_shapes=({1: _COLUMNS},)),
            MethodSpec("write_narrow", (_randn(4, 5),), dynamic_shapes=({0: _ROWS, 1: _COLUMNS},)),
            MethodSpec("write_offset_rows", (_randn(2, 6),), dynamic_shapes=({0: _ROWS},)),
            MethodSpec("fill_block", (_randn(2, 3),), dynamic_shapes=({0: _ROWS, 1: _COLUMNS},)),
            MethodSpec("read_block", (_randn(4, 5),), dynamic_shapes=({0: _ROWS, 1: _COLUMNS},)),
            MethodSpec("read_narrow", (_randn(4, 5),), dynamic_shapes=({0: _ROWS, 1: _COLUMNS},)),
        ),
        shared=("grid",),
    ),
    Case(
        name="full_size_slices_3d",
        pattern="a [2, 4, 3] cache written as cache[:h, :p] = x with h and p up to the full size",
        build=_built(FullSizeSlices3d),
        methods=(
            MethodSpec("write", (_randn(2, 3, 3),),
                       dynamic_shapes=({0: Dim("h", min=1, max=2), 1: Dim("p", min=1, max=4)},)),
            MethodSpec("read", (_randn(2, 4, 3),)),
        ),
        shared=("cache",),
    ),
]
