"""The user-visible inputs and outputs of a traced method: dtypes and shapes, with each
dynamic dimension's name and bounds."""

from __future__ import annotations

from typing import Any

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

from pteforge.arguments import finite_upper


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


def method_signature(program: ExportedProgram, written_args: tuple[int, ...] = ()) -> dict[str, list[Any]]:
    """The user inputs and outputs of a traced method, and the arguments it writes.

    Args:
      program: the traced method.
      written_args: the arguments it writes, whose values follow its own outputs
        (written_arguments.py); they are listed under "writes", not as outputs.
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
    return {
        "inputs": inputs,
        "outputs": outputs[: len(outputs) - len(written_args)],
        "writes": list(written_args),
    }
