"""The user-visible inputs and outputs of a traced method: dtypes and shapes, with each
dynamic dimension's name and bounds, and each one's name: its path in the method's
arguments (`x`, `xs[1]`, `d['a']`) or in what it returns (`[0]`, `['h']`; "" for a
single tensor). A method's arguments and results may be tuples, lists and dicts of
tensors: the program takes and returns them flat, in torch.utils._pytree order, and the
structures are kept as serialized treespecs ("in_spec", "out_spec") for the loaders."""

from __future__ import annotations

from typing import Any

import torch
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

from pteforge.capture.arguments import finite_upper, leaf_names, output_leaf_names


def dtype_name(dtype: torch.dtype) -> str:
    """"float32", "int64", ... (torch.float32 without "torch.")."""
    return str(dtype).removeprefix("torch.")


def _tensor_info(value: Any, program: ExportedProgram) -> dict[str, Any]:
    """Shape (ints, or {name, min, max} for a dynamic dimension) and dtype of a value."""
    if not isinstance(value, torch.Tensor):
        return {"type": type(value).__name__}
    shape: list[Any] = []
    for size in value.shape:
        if isinstance(size, torch.SymInt):
            expr = size.node.expr
            bounds = program.range_constraints.get(expr)
            shape.append({
                "dim": str(expr),
                "min": int(bounds.lower) if bounds is not None else None,
                "max": finite_upper(program, size),
            })
        else:
            shape.append(int(size))
    return {"dtype": dtype_name(value.dtype), "shape": shape}


def method_signature(program: ExportedProgram, written_args: tuple[int, ...] = ()) -> dict[str, Any]:
    """The user inputs and outputs of a traced method, and the arguments it writes.

    Args:
      program: the traced method.
      written_args: the flat inputs it writes, whose values follow its own outputs
        (written_arguments.py); they are listed under "writes", not as outputs.

    Returns:
      {"inputs": [...], "outputs": [...], "writes": [...], "in_spec": ..., "out_spec": ...}:
      one entry per flat input and output (dtype, shape and "name"), and the treespecs
      (torch.utils._pytree.treespec_dumps) of the positional arguments, as a tuple, and
      of the method's own result; a spec is None where the program does not say.
    """
    nodes = {node.name: node for node in program.graph.nodes}
    signature = program.graph_signature
    inputs = [
        _tensor_info(nodes[spec.arg.name].meta.get("val"), program)
        for spec in signature.input_specs
        if spec.kind == InputKind.USER_INPUT
    ]
    output_node = next(node for node in program.graph.nodes if node.op == "output")
    output_values = output_node.args[0]
    outputs = [
        _tensor_info(getattr(arg, "meta", {}).get("val", arg), program)
        for spec, arg in zip(signature.output_specs, output_values)
        if spec.kind == OutputKind.USER_OUTPUT
    ]
    outputs = outputs[: len(outputs) - len(written_args)]
    in_spec, out_spec = _structures(program, len(written_args))
    input_names = _input_names(program, in_spec)
    output_names = output_leaf_names(out_spec) if out_spec is not None else []
    for entries, names in ((inputs, input_names), (outputs, output_names)):
        if len(names) != len(entries):  # a structure pteforge does not follow: no names
            names = [""] * len(entries)
        for entry, name in zip(entries, names):
            entry["name"] = name
    return {
        "inputs": inputs,
        "outputs": outputs,
        "writes": list(written_args),
        "in_spec": dumps_spec(in_spec),
        "out_spec": dumps_spec(out_spec),
    }


def dumps_spec(spec: Any) -> str | None:
    """torch.utils._pytree.treespec_dumps(spec) (one line of JSON), or None for no spec
    or one torch cannot serialize (e.g. a namedtuple type it does not know)."""
    if spec is None:
        return None
    try:
        return pytree.treespec_dumps(spec)
    except Exception:  # noqa: BLE001 (torch raises several types for unknown node types)
        return None


def _structures(program: ExportedProgram, written: int) -> tuple[Any, Any]:
    """The treespecs of the positional arguments (a tuple) and of the method's own
    result (without the written arguments written_arguments.py appended)."""
    entries = list(program.module_call_graph)
    if not entries or entries[0].signature is None:
        return None, None
    root = entries[0].signature
    in_spec = root.in_spec  # (args, kwargs)
    if in_spec is not None and in_spec.type is tuple and in_spec.num_children == 2:
        in_spec = in_spec.child(0)
    else:
        in_spec = None
    out_spec = root.out_spec
    if written and out_spec is not None:
        out_spec = out_spec.child(0) if out_spec.num_children == written + 1 else None
    return in_spec, out_spec


def _input_names(program: ExportedProgram, in_spec: Any) -> list[str]:
    if in_spec is None:
        return []
    args = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    parameters = program.module_call_graph[0].signature.forward_arg_names or []
    return leaf_names(list(parameters), list(args))
