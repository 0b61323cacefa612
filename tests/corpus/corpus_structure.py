"""Corpus: How the module and its methods are laid out: state in nested submodules and ModuleLists, methods without inputs or outputs, several and nested outputs, returning state itself, many methods."""

from __future__ import annotations

import torch
from torch import nn

from pteforge.support.spec import MethodSpec

from tests.corpus.builders import built, example_inputs
from tests.corpus.case import Case

_randn = example_inputs(20240613)


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


CASES: list[Case] = [
    Case(
        name="nested_submodules",
        pattern="state in nested submodules, declared by submodule name and by dotted buffer name",
        build=built(NestedState),
        methods=(MethodSpec("encode", (_randn(4),)), MethodSpec("decode", (_randn(4),))),
        shared=("encoder", "decoder.memory"),
    ),
    Case(
        name="module_list_layers",
        pattern="an nn.ModuleList of layers, each with its own state buffer, declared by the list's name",
        build=built(LayerStack),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("reset", ())),
        shared=("layers",),
    ),
    Case(
        name="zero_arg_methods",
        pattern="methods without inputs: tick() updating state, now() reading it",
        build=built(Clock),
        methods=(MethodSpec("tick", ()), MethodSpec("now", ()), MethodSpec("phase", (_randn(3),))),
        shared=("t",),
    ),
    Case(
        name="constant_output_method",
        pattern="initial_state() with no inputs returning a fresh torch.zeros (a constant output)",
        build=built(InitialState),
        methods=(MethodSpec("initial_state", ()), MethodSpec("step", (_randn(1, 4),))),
        shared=("h",),
    ),
    Case(
        name="no_output_method",
        pattern="a method that only updates state and returns None",
        build=built(NoOutput),
        methods=(MethodSpec("observe", (_randn(4),)), MethodSpec("read", (_randn(4),))),
        shared=("acc",),
    ),
    Case(
        name="multi_outputs",
        pattern="several outputs: a tuple of tensors and a list of tensors",
        build=built(MultiOutput),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("step_list", (_randn(4),))),
        shared=("h",),
    ),
    Case(
        name="nested_tuple_output",
        pattern="LSTM-style nested output: return y, (h, c)",
        build=built(NestedTupleOutput),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("h", "c"),
    ),
    Case(
        name="dict_output",
        pattern="Hugging Face-style dict output: {'logits': ..., 'state': ...}",
        build=built(DictOutput),
        methods=(MethodSpec("step", (_randn(4),)),),
        shared=("h",),
    ),
    Case(
        name="many_methods",
        pattern="twelve methods sharing gain, bias, accumulator, int64 step count and a history",
        build=built(Controller),
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
        name="return_state_alias",
        pattern="returning the state buffer itself (no clone), after an in-place update and from a zero-arg getter",
        build=built(ReturnStateAlias),
        methods=(MethodSpec("step", (_randn(4),)), MethodSpec("snapshot", ())),
        shared=("h",),
    ),
]
