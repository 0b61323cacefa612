"""A traced method's user inputs as the caller wrote them, and the bounds of their sizes.

torch.export flattens a method's arguments (tensors, and tuples, lists and dicts of
them) into a flat list of inputs, in pytree order. pteforge names each flat input by
its path in the caller's arguments, `x`, `xs[1]` or `d['k']`, so that messages, the
report and the loaders can say which one is meant.

A dynamic dimension needs an upper bound: ExecuTorch plans every tensor's memory at its
largest size. torch.export's `Dim("n")` and `Dim.DYNAMIC` have none unless the traced
code implies one, and torch marks "none" with its integer infinity, whose `is_finite`
answers true (it is a sympy number): `finite_upper` is the one place bounds are read.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import torch
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from pteforge.support.errors import ExportError


def method_parameters(function: Callable[..., Any]) -> list[str]:
    """The positional parameter names of an unbound method, without its first (self,
    whatever its name)."""
    return list(inspect.signature(function).parameters)[1:]


def leaf_names(parameters: Sequence[str], example_args: Sequence[Any]) -> list[str]:
    """The path of each flat input of a method, in torch.export's order.

    Args:
      parameters: the method's positional parameter names (without self).
      example_args: its example arguments.
    """
    names = []
    for index, argument in enumerate(example_args):
        base = parameters[index] if index < len(parameters) else f"arg{index}"
        paths, _ = pytree.tree_flatten_with_path(argument)
        names += [base + "".join(_key_text(key) for key in path) for path, _ in paths]
    return names


def output_leaf_names(out_spec: pytree.TreeSpec) -> list[str]:
    """The path of each flat output of a method within what it returns: `[0]`, `['h']`,
    `[1]['k']`; "" for a method returning one tensor (the whole value)."""
    paths, _ = pytree.tree_flatten_with_path(pytree.tree_unflatten(list(range(out_spec.num_leaves)), out_spec))
    return ["".join(_key_text(key) for key in path) for path, _ in paths]


def _key_text(key: Any) -> str:
    if isinstance(key, pytree.SequenceKey):
        return f"[{key.idx}]"
    if isinstance(key, pytree.MappingKey):
        return f"[{key.key!r}]"
    return str(key)  # attribute keys of registered classes print as ".name"


def finite_upper(program: ExportedProgram, size: Any) -> int | None:
    """The largest value a (possibly symbolic) size can take; None if it has no bound."""
    if not isinstance(size, torch.SymInt):
        return int(size)
    bounds = program.range_constraints.get(size.node.expr)
    if bounds is None:
        return None
    upper = bounds.upper
    if not upper.is_number or upper.is_infinite or "Infinity" in type(upper).__name__:
        return None  # torch's int_oo answers is_finite=True
    return int(upper)


def check_bounded(program: ExportedProgram, method: str, names: Sequence[str]) -> None:
    """Refuses a dynamic dimension of an input without an upper bound, naming it.

    Args:
      program: the traced method.
      method: its name, for the message.
      names: the flat inputs' names (leaf_names), in order.
    """
    nodes = {node.name: node for node in program.graph.nodes}
    user_inputs = [spec for spec in program.graph_signature.input_specs if spec.kind == InputKind.USER_INPUT]
    for position, spec in enumerate(user_inputs):
        value = nodes[spec.arg.name].meta.get("val") if hasattr(spec.arg, "name") else None
        if not isinstance(value, torch.Tensor):
            continue
        for axis, size in enumerate(value.shape):
            if isinstance(size, torch.SymInt) and finite_upper(program, size) is None:
                name = names[position] if position < len(names) else f"input {position}"
                raise ExportError(
                    f"dimension {axis} of argument '{name}' is dynamic with no upper bound, and ExecuTorch "
                    "plans memory for the largest size. Give its Dim a maximum: Dim(\"n\", max=N) "
                    "(a Dim without max, and Dim.DYNAMIC, have none)",
                    method=method,
                )
