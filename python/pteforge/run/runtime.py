"""Loads a pteforge .pte in ExecuTorch's Python runtime, the way it is meant to be run.

Every method is loaded before the first call (loading a method later would not reset
state, but loading them up front is what the C++ Session does too), then
`reset_state` writes the state's initial values. What the runtime's C++ code prints
(e.g. its cpuinfo lines) is held back unless pteforge is verbose, and goes into the
error message when a call fails (pteforge.support.quiet). ExecuTorch's Python runtime gives all
methods of one program the same planned memory arenas (FINDINGS.md), so state written
by one method is read by the others.

A method's arguments and result may be tuples, lists and dicts of tensors (what
torch.export accepts). The program itself takes and returns flat lists, in
torch.utils._pytree order; `run` takes the arguments as eager PyTorch does and returns
the flat outputs, `call` returns them in the structure eager PyTorch returns:

    program = pteforge.load("containers.pte")
    outputs = program.run("g", {"a": a, "b": b})     # [h, b2]: a flat list
    result = program.call("g", {"a": a, "b": b})     # {"h": h, "b": b2}
"""

from __future__ import annotations

import mmap
import os
from typing import Any, Callable

import torch
import torch.utils._pytree as pytree
from executorch.runtime import Runtime

from pteforge.emit import metadata as metadata_lib
from pteforge.support.quiet import captured_stderr


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


def _register_kernels(data: bytes | str) -> None:
    """Registers the kernels the Python runtime lacks and the program names: pteforge's
    own (pteforge.cortex_m) and ExecuTorch's quantized ones (quantized_kernels.py)."""
    from pteforge.cortex_m import kernels
    from pteforge.run import quantized_kernels

    if isinstance(data, str):
        try:
            with open(data, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                ours, quantized = kernels.needs_kernels(mapped), mapped.find(quantized_kernels.MARKER) != -1
        except (OSError, ValueError):  # missing or empty: the runtime's own error follows
            return
    else:
        ours, quantized = kernels.needs_kernels(data), data.find(quantized_kernels.MARKER) != -1
    if ours:
        kernels.load()
    if quantized:
        quantized_kernels.load()


class LoadedProgram:
    """A program with all its methods loaded and its state initialized.

    Not thread-safe: methods share memory and must not run concurrently.

    Args:
      source: the .pte bytes, or a path to a .pte file.
    """

    def __init__(self, source: bytes | str | os.PathLike):
        data = source if isinstance(source, bytes) else os.fspath(source)
        _register_kernels(data)
        self._program = _call("loading the program", lambda: Runtime.get().load_program(data))
        self._methods = {name: _call(f"loading method '{name}'", self._program.load_method, name)
                         for name in sorted(self._program.method_names)}
        self.metadata: metadata_lib.Metadata | None = None
        self._specs: dict[tuple[str, str], pytree.TreeSpec | None] = {}
        if metadata_lib.METADATA_METHOD in self._methods:
            (text,) = self.run(metadata_lib.METADATA_METHOD)
            self.metadata = metadata_lib.decode(text)
        self.reset_state()

    @property
    def method_names(self) -> list[str]:
        """Every method of the program, sorted."""
        return list(self._methods)

    def run(self, method: str, *args: Any) -> list[Any]:
        """Calls `method` with positional arguments; returns its outputs as a flat list.

        The arguments are as eager PyTorch takes them: tensors, and tuples, lists and
        dicts of them, flattened here in torch.utils._pytree order (torch.export's);
        dicts may list their keys in any order. The outputs are the leaves of what the
        method returns, in the same order (`call` gives them their structure).

        As in eager PyTorch, the tensors among `args` that the method writes in place
        (`written_args`, which counts flat inputs: an element of a tuple argument
        too) hold the values the method left in them when it returns.
        """
        if method not in self._methods:
            raise KeyError(f"no method '{method}' (the program has {', '.join(self._methods)})")
        leaves = self.flatten(method, *args)
        written = self.written_args(method)
        for index in written:
            if index >= len(leaves) or not isinstance(leaves[index], torch.Tensor):
                raise TypeError(f"method '{method}' writes its input {index} "
                                f"({self._name(method, 'input', index)}) in place: pass a torch.Tensor there")
        # The runtime reads inputs as dense memory.
        inputs = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in leaves]
        outputs = list(_call(f"method '{method}'", self._methods[method].execute, inputs))
        if not written:
            return outputs
        own = len(outputs) - len(written)
        with torch.no_grad():
            for index, value in zip(written, outputs[own:]):
                leaves[index].copy_(value)
        return outputs[:own]

    def call(self, method: str, *args: Any) -> Any:
        """Calls `method` like `run`, and returns its result in the structure the eager
        method returns (a tensor, or tuples, lists and dicts of them): the program's
        metadata keeps that structure. A program exported before pteforge kept it
        (metadata format 2) gives a method with one output that output, otherwise the list.
        """
        outputs = self.run(method, *args)
        spec = self._spec(method, "output")
        if spec is None:
            return outputs[0] if len(outputs) == 1 else outputs
        if spec.num_leaves != len(outputs):
            raise ExecutorchError(f"method '{method}' returned {len(outputs)} values; its metadata says "
                                  f"{spec.num_leaves}", "")
        return pytree.tree_unflatten(outputs, spec)

    def input_names(self, method: str) -> list[str]:
        """The name of each flat input of `method`, its path in the arguments (`x`,
        `xs[1]`, `d['a']`); "" for each when the metadata gives none."""
        return [self._name(method, "input", index, "") for index in range(self._count(method, "input"))]

    def output_names(self, method: str) -> list[str]:
        """The name of each flat output of `method`, its path in the result (`[0]`,
        `['h']`); "" for a method returning one tensor."""
        return [self._name(method, "output", index, "") for index in range(self._count(method, "output"))]

    def _count(self, method: str, kind: str) -> int:
        spec = self._spec(method, kind)
        if spec is not None:
            return spec.num_leaves
        meta = self._program.metadata(method)
        return meta.num_inputs() if kind == "input" else meta.num_outputs() - len(self.written_args(method))

    def _spec(self, method: str, kind: str) -> pytree.TreeSpec | None:
        """The metadata's treespec of `method`'s arguments (kind "input") or result
        ("output"), decoded once; None without one."""
        key = (method, kind)
        if key not in self._specs:
            spec = None
            if self.metadata:
                spec = self.metadata.in_spec(method) if kind == "input" else self.metadata.out_spec(method)
            self._specs[key] = spec
        return self._specs[key]

    def _name(self, method: str, kind: str, index: int, default: str | None = None) -> str:
        name = self.metadata.name(method, kind, index) if self.metadata else ""
        return name or (f"{kind} {index}" if default is None else default)

    def flatten(self, method: str, *args: Any) -> list[Any]:
        """The program's flat inputs for these arguments of `method`: their leaves (the
        tensors themselves, not copies), in the order of the structure the method was
        exported with, so that a dict's keys may come in any order.

        Raises:
          TypeError: the arguments are structured otherwise (a list for a tuple too).
        """
        spec = self._spec(method, "input")
        if spec is None:
            return pytree.tree_leaves(args)
        try:
            leaves = spec.flatten_up_to(tuple(args))
            error = next((f"{type(leaf).__name__} where a value is expected" for leaf in leaves
                          if not pytree.tree_structure(leaf).is_leaf()), None)
        except (ValueError, TypeError) as failure:
            error = str(failure)
        if error is None:
            return leaves
        given = pytree.tree_structure(tuple(args))
        raise TypeError(f"method '{method}' takes arguments structured as {_describe(spec)} (one * per "
                        f"tensor), got {_describe(given)}: {error}")

    def written_args(self, method: str) -> tuple[int, ...]:
        """The flat inputs `method` writes in place, by index into its flattened
        arguments (none for most methods; `input_names` names them)."""
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


def _describe(spec: pytree.TreeSpec) -> str:
    """A structure as Python would print it, with * for each leaf: `([*, *],)`."""
    return repr(pytree.tree_unflatten([_Leaf()] * spec.num_leaves, spec))


class _Leaf:
    def __repr__(self) -> str:
        return "*"


def load(source: bytes | str | os.PathLike) -> LoadedProgram:
    """Loads a pteforge .pte (bytes or path); see LoadedProgram."""
    return LoadedProgram(source)

