"""Corpus: Where state comes from and what it holds: initial values from buffers, parameters and literals, one buffer written by several methods, int64, bool, float16, bfloat16 and 0-d state, private next to shared state."""

from __future__ import annotations

import torch
from torch import nn

from pteforge.support.spec import MethodSpec

from tests.corpus.builders import BF16_TOLERANCE, HALF_TOLERANCE, built, example_inputs
from tests.corpus.case import Case

_randn = example_inputs(20240611)


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


CASES: list[Case] = [
    Case(
        name="reset_from_buffer",
        pattern="state reset from a never-mutated buffer: h.copy_(h0), in a zero-arg reset()",
        build=built(ResetFromBuffer),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("reset", ())),
        shared=("h",),
    ),
    Case(
        name="begin_from_buffer",
        pattern="h.copy_(h0) then a step in the same method (start of a sequence)",
        build=built(BeginFromBuffer),
        methods=(MethodSpec("begin", (_randn(2, 4),)), MethodSpec("step", (_randn(2, 4),))),
        shared=("h",),
    ),
    Case(
        name="reset_from_parameter",
        pattern="state reset from a learned initial state: h.copy_(h_init), h_init an nn.Parameter",
        build=built(ResetFromParameter),
        methods=(MethodSpec("start", (_randn(2, 4),)), MethodSpec("step", (_randn(2, 4),))),
        shared=("h",),
    ),
    Case(
        name="reset_to_literal",
        pattern="state set to constants: h.zero_(), h.fill_(0.5)",
        build=built(ResetToLiteral),
        methods=(MethodSpec("step", (_randn(3, 4),)), MethodSpec("clear", ()), MethodSpec("warm", (_randn(3, 4),))),
        shared=("h",),
    ),
    Case(
        name="multi_writer",
        pattern="one buffer written by several methods: add / scale / reset / broadcast copy_",
        build=built(MultiWriter),
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
        build=built(Int64Counter),
        methods=(MethodSpec("step", (_randn(3),)), MethodSpec("read", (_randn(3),))),
        shared=("steps",),
    ),
    Case(
        name="bool_flag",
        pattern="bool state set from a comparison, toggled with ~, cleared, used in torch.where",
        build=built(BoolFlag),
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
        build=built(HalfState),
        methods=(MethodSpec("step", (_randn(4, dtype=torch.float16),)), MethodSpec("read_f32", (_randn(4),))),
        shared=("h",),
        tolerance=HALF_TOLERANCE,
    ),
    Case(
        name="bfloat16_state",
        pattern="bfloat16 accumulator, read into float32",
        build=built(BFloat16State),
        methods=(MethodSpec("accumulate", (_randn(2, 4, dtype=torch.bfloat16),)), MethodSpec("mean", (_randn(4),))),
        shared=("acc",),
        tolerance=BF16_TOLERANCE,
    ),
    Case(
        name="zero_dim_state",
        pattern="0-dimensional float and int64 state",
        build=built(ZeroDimState),
        methods=(MethodSpec("step", (_randn(3),)), MethodSpec("read", (_randn(3),))),
        shared=("t", "n"),
    ),
    Case(
        name="private_and_shared",
        pattern="shared state plus an undeclared private counter in each method",
        build=built(PrivateAndShared),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("h",),
    ),
]
