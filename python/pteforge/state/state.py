"""Which buffers are state, and the generated methods that reset and read them.

Vocabulary:
  shared state   buffers the user declares with MultiMethodExporter.shared_state():
                 every method that touches one (even only reading it) sees the same
                 memory, exactly as the eager module's methods see the same tensor.
  private state  buffers a method mutates that are not declared shared. Allowed when
                 exactly one method touches the buffer: it keeps its value across that
                 method's calls and no other method can clobber it.
  constants      buffers no method mutates (and parameters): baked into the .pte.

ExecuTorch places all state in one planned arena (memory id 2) at offsets fixed per
name. Planned memory starts zeroed rather than at the module's values, and
ExecuTorch's own initialization (InitializedMutableBufferPass) stores a copy of the
initial value per method and rewrites it whenever a method is loaded (FINDINGS.md).
pteforge instead generates `reset_state`, which writes the initial values (fill_ for
uniform tensors, one stored copy otherwise); pteforge's loaders call it once after
loading every method. `get_state` returns every state buffer, which is how export-time
verification reads the runtime's state.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from typing import Any, Callable, Mapping, Sequence

import torch

from pteforge.capture.capture import CapturedMethod
from pteforge.support.errors import ExportError


@dataclasses.dataclass(frozen=True)
class StateBuffer:
    """One buffer of the program's state.

    Attributes:
      name: fully-qualified name (the name ExecuTorch emits for it).
      shared: declared shared by the user (else private to one method).
      initial: its value when export started.
      methods: the user methods that touch it, in registration order.
    """

    name: str
    shared: bool
    initial: torch.Tensor
    methods: tuple[str, ...]


def expand_declarations(module: torch.nn.Module, declared: Sequence[str]) -> list[str]:
    """Expands shared_state() declarations (buffer or submodule names) to buffer names.

    Raises:
      ExportError: a name is neither a buffer nor a submodule (listing the buffers), or
        it names a parameter or a submodule without buffers.
    """
    buffers = dict(module.named_buffers(remove_duplicate=False))
    modules = dict(module.named_modules(remove_duplicate=False))
    parameters = dict(module.named_parameters(remove_duplicate=False))
    names: list[str] = []
    for declaration in declared:
        if declaration in buffers:
            expanded = [declaration]
        elif declaration in modules and declaration != "":
            expanded = [
                f"{declaration}.{name}" for name, _ in modules[declaration].named_buffers()
            ]
            if not expanded:
                raise ExportError(
                    f"shared_state('{declaration}') names a submodule without buffers; "
                    f"register its state with register_buffer().",
                    buffer=declaration,
                )
        elif declaration in parameters:
            raise ExportError(
                f"shared_state('{declaration}') names a parameter. Parameters are constants "
                "in the .pte; register state with module.register_buffer() instead.",
                buffer=declaration,
            )
        else:
            close = difflib.get_close_matches(declaration, list(buffers), n=3)
            hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise ExportError(
                f"shared_state('{declaration}'): the module has no buffer or submodule of "
                f"that name.{hint} Its buffers are: {', '.join(sorted(buffers)) or '(none)'}.",
                buffer=declaration,
            )
        names.extend(name for name in expanded if name not in names)
    return names


def classify(
    module: torch.nn.Module,
    shared: Sequence[str],
    captured: Sequence[CapturedMethod],
) -> list[StateBuffer]:
    """Decides which buffers are state, checking that undeclared state stays private.

    Args:
      module: the exported module, holding the initial values.
      shared: buffer names declared shared (already expanded).
      captured: every user method, traced.

    Returns:
      The state buffers, sorted by name.

    Raises:
      ExportError: a buffer is mutated but touched by several methods without being
        declared shared, or a state buffer is reachable under several names.
    """
    buffers = dict(module.named_buffers(remove_duplicate=False))
    touched_by: dict[str, list[str]] = {}
    written = set()
    for method in captured:
        for name in method.reads:
            touched_by.setdefault(name, []).append(method.name)
        written |= method.writes
    _check_single_name(module, set(shared) | written)

    state = []
    for name in sorted(set(shared) | written):
        methods = tuple(touched_by.get(name, ()))
        if name not in shared and len(methods) > 1:
            writers = [m.name for m in captured if name in m.writes]
            raise ExportError(
                f"is mutated by {_quote(writers)} and used by {_quote(methods)}, but is not "
                "declared shared state. Declare it with exporter.shared_state("
                f"'{name}') so every method sees the same value, or give each method a "
                "buffer of its own.",
                buffer=name,
            )
        state.append(
            StateBuffer(
                name=name,
                shared=name in shared,
                initial=buffers[name].detach().clone(),
                methods=methods,
            )
        )
    return state


def _check_single_name(module: torch.nn.Module, state_names: set[str]) -> None:
    """Rejects state reachable under several attribute paths.

    torch.export 2.13 names such a buffer after one of its paths and drops its mutations
    from the graph signature, so the state would silently stop being written.
    """
    names_by_tensor: dict[int, list[str]] = {}
    for name, tensor in module.named_buffers(remove_duplicate=False):
        names_by_tensor.setdefault(id(tensor), []).append(name)
    for names in names_by_tensor.values():
        if len(names) > 1 and state_names & set(names):
            raise ExportError(
                f"the same state buffer is reachable as {_quote(names)}. torch.export "
                "names it after one path and drops its mutations, so methods would not see "
                "each other's writes. Reach each state buffer through a single attribute "
                "path (remove the alias submodule attribute, or store a reference to its "
                "parent instead).",
                buffer=names[0],
            )


def _quote(names: Sequence[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)


def _lookup(module: torch.nn.Module, name: str) -> torch.Tensor:
    return functools.reduce(getattr, name.split("."), module)


def make_reset_state(state: Sequence[StateBuffer]) -> Callable[[torch.nn.Module], tuple]:
    """Returns a method body that writes every state buffer's initial value."""
    plan: list[tuple[str, Any]] = []
    for buffer in state:
        initial = buffer.initial
        flat = initial.reshape(-1)
        if flat.numel() > 0 and bool((flat == flat[0]).all()):
            plan.append((buffer.name, flat[0].item()))  # fill_: no stored copy
        else:
            plan.append((buffer.name, initial.clone()))

    def reset_state(self: torch.nn.Module) -> tuple:
        for name, value in plan:
            target = _lookup(self, name)
            if isinstance(value, torch.Tensor):
                target.copy_(value)
            else:
                target.fill_(value)
        return ()

    return reset_state


def make_get_state(state: Sequence[StateBuffer]) -> Callable[[torch.nn.Module], tuple]:
    """Returns a method body returning every state buffer, in `state` order."""
    names = [buffer.name for buffer in state]

    def get_state(self: torch.nn.Module) -> tuple:
        return tuple(_lookup(self, name) for name in names)

    return get_state


def state_values(module: torch.nn.Module, state: Sequence[StateBuffer]) -> Mapping[str, torch.Tensor]:
    """The current values of the state buffers of an eager module (copies)."""
    return {buffer.name: _lookup(module, buffer.name).detach().clone() for buffer in state}
