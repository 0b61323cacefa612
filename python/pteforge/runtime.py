"""Loads a pteforge .pte in ExecuTorch's Python runtime, the way it is meant to be run.

Every method is loaded before the first call (loading a method later would not reset
state, but loading them up front is what the C++ Session does too), then
`reset_state` writes the state's initial values. What the runtime's C++ code prints
(e.g. its cpuinfo lines) is held back unless pteforge is verbose, and goes into the
error message when a call fails (pteforge.quiet). ExecuTorch's Python runtime gives all
methods of one program the same planned memory arenas (FINDINGS.md), so state written
by one method is read by the others.
"""

from __future__ import annotations

import mmap
import os
from typing import Any, Callable

import torch
from executorch.runtime import Runtime

from pteforge import metadata as metadata_lib
from pteforge.quiet import captured_stderr


class ExecutorchError(RuntimeError):
    """A call into ExecuTorch's runtime failed.

    Attributes:
      log: what the runtime printed during the call (its own account of the failure).
    """

    def __init__(self, message: str, log: str):
        super().__init__(message + (f"\nExecuTorch's log:\n{log}" if log else ""))
        self.log = log


def _call(what: str, function: Callable[..., Any], *args: Any) -> Any:
    """function(*args) with the runtime's stderr held back; on failure an
    ExecutorchError carrying it."""
    failure = None
    with captured_stderr() as said:
        try:
            return function(*args)
        except Exception as error:  # noqa: BLE001 (the pybindings raise several types)
            failure = error
    raise ExecutorchError(f"{what}: {failure}", said.lines()) from failure


def _register_pteforge_kernels(data: bytes | str) -> None:
    """Loads pteforge's own kernels (pteforge.cortex_m) if the program names them."""
    from pteforge.cortex_m import kernels

    if isinstance(data, str):
        try:
            with open(data, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                needed = kernels.needs_kernels(mapped)
        except (OSError, ValueError):  # missing or empty: the runtime's own error follows
            return
    else:
        needed = kernels.needs_kernels(data)
    if needed:
        kernels.load()


class LoadedProgram:
    """A program with all its methods loaded and its state initialized.

    Not thread-safe: methods share memory and must not run concurrently.

    Args:
      source: the .pte bytes, or a path to a .pte file.
    """

    def __init__(self, source: bytes | str | os.PathLike):
        data = source if isinstance(source, bytes) else os.fspath(source)
        _register_pteforge_kernels(data)
        self._program = _call("loading the program", lambda: Runtime.get().load_program(data))
        self._methods = {name: _call(f"loading method '{name}'", self._program.load_method, name)
                         for name in sorted(self._program.method_names)}
        self.metadata: metadata_lib.Metadata | None = None
        if metadata_lib.METADATA_METHOD in self._methods:
            (text,) = self.run(metadata_lib.METADATA_METHOD)
            self.metadata = metadata_lib.decode(text)
        self.reset_state()

    @property
    def method_names(self) -> list[str]:
        """Every method of the program, sorted."""
        return list(self._methods)

    def run(self, method: str, *args: Any) -> list[Any]:
        """Calls `method` with positional inputs; returns its outputs as a list.

        As in eager PyTorch, the tensors among `args` that the method writes in place
        (`written_args`) hold the values the method left in them when it returns.
        """
        if method not in self._methods:
            raise KeyError(f"no method '{method}' (the program has {', '.join(self._methods)})")
        written = self.written_args(method)
        for index in written:
            if index >= len(args) or not isinstance(args[index], torch.Tensor):
                raise TypeError(f"method '{method}' writes its argument {index} in place: pass a torch.Tensor there")
        # The runtime reads inputs as dense memory.
        inputs = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        outputs = list(_call(f"method '{method}'", self._methods[method].execute, inputs))
        if not written:
            return outputs
        own = len(outputs) - len(written)
        with torch.no_grad():
            for index, value in zip(written, outputs[own:]):
                args[index].copy_(value)
        return outputs[:own]

    def written_args(self, method: str) -> tuple[int, ...]:
        """The arguments `method` writes in place, by index (none for most methods)."""
        return self.metadata.written_args(method) if self.metadata else ()

    def reset_state(self) -> None:
        """Writes the initial values into the state (no-op for a stateless program)."""
        if self.metadata and self.metadata.reset_state:
            self.run(self.metadata.reset_state)

    def state_names(self) -> list[str]:
        """Names of the state buffers, in get_state order."""
        return [entry.name for entry in self.metadata.state] if self.metadata else []

    def state(self) -> dict[str, torch.Tensor]:
        """A copy of every state buffer's current value, by name."""
        if not self.metadata or not self.metadata.get_state:
            return {}
        values = self.run(self.metadata.get_state)
        return {name: value.clone() for name, value in zip(self.state_names(), values)}


def load(source: bytes | str | os.PathLike) -> LoadedProgram:
    """Loads a pteforge .pte (bytes or path); see LoadedProgram."""
    return LoadedProgram(source)

