"""backend="cortex_m": a method's linear layers onto pteforge's CMSIS-NN operators.

Runs on each captured method (ATen dialect, before ExecuTorch's edge conversion, which
would decompose `aten.linear` into a transpose and `addmm`):

  aten.linear(x, W, b) with a float32 [n, k] weight      -> pteforge.linear(x, W, b, relu=False)
  relu(layer) for any pteforge linear layer (linear, linear_dq8, linear_dq16) used
  only there                                              -> the same layer with relu=True

Layers quantized beforehand (quantize.py) are pteforge.linear_dq8 already. Everything
else stays on ExecuTorch's portable kernels. The weights keep PyTorch's [n, k] layout,
which CMSIS-NN's fully connected kernels read as they are: nothing is packed, so a
weight may even be state (a method sees its updates).
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from pteforge.cortex_m import ops  # noqa: F401  defines torch.ops.pteforge

_LINEAR = torch.ops.aten.linear.default
_RELU = torch.ops.aten.relu.default


def _layers():
    return (torch.ops.pteforge.linear.default, torch.ops.pteforge.linear_dq8.default,
            torch.ops.pteforge.linear_dq16.default)


def _value(node: torch.fx.Node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def _takes(node: torch.fx.Node) -> bool:
    """A float32 linear layer with a 2-D weight (what pteforge.linear computes)."""
    x, weight = _value(node.args[0]), _value(node.args[1])
    return (isinstance(x, torch.Tensor) and isinstance(weight, torch.Tensor) and x.dtype == torch.float32
            and weight.dtype == torch.float32 and weight.dim() == 2)


def _replace(program: ExportedProgram, old: torch.fx.Node, new: torch.fx.Node) -> None:
    """Uses `new` wherever `old` was used, the program's output names included."""
    for spec in program.graph_signature.output_specs:
        if getattr(spec.arg, "name", None) == old.name:
            spec.arg.name = new.name
    old.replace_all_uses_with(new)
    old.graph.erase_node(old)


def use_cmsis_nn(program: ExportedProgram) -> int:
    """Rewrites `program` in place (see the module docstring); returns how many linear
    layers run on pteforge's operators now."""
    graph = program.graph_module.graph
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target == _LINEAR and _takes(node):
            bias = node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")
            with graph.inserting_before(node):
                layer = graph.call_function(torch.ops.pteforge.linear.default, (node.args[0], node.args[1], bias, False))
            layer.meta = dict(node.meta)
            _replace(program, node, layer)
    layers = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in _layers():
            continue
        layers += 1
        users = list(node.users)
        if len(users) == 1 and users[0].target == _RELU and not node.args[-1]:
            node.args = (*node.args[:-1], True)
            _replace(program, users[0], node)
    graph.lint()
    program.graph_module.recompile()
    return layers
