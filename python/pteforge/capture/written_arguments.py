"""Arguments a method writes, as eager PyTorch writes them: returned for the caller.

In eager PyTorch a method that changes its argument in place (`F.relu(x, inplace=True)`,
`out[:, 0] = x[:, 0]`, `data.copy_(self.cache)`) changes the caller's tensor. torch.export
records such a write as a USER_INPUT_MUTATION output, and ExecuTorch 1.5.1 copies it back
into the method's *planned copy* of the input, not into the caller's memory, while
leaving the value as an extra leading output the caller does not expect
(pytorch/executorch#11870, #4785; FINDINGS.md, "Arguments written by a method").

pteforge makes the write explicit instead: each written argument's final value becomes
a plain output after the method's own outputs, and the program's metadata lists, in
that order, which argument each one is (`writes <method> <argument>`). pteforge's
loaders (pteforge.load, the C++ Session and the tools on it) copy those values into the
caller's tensors after the call and return only the method's own outputs. The program
itself holds no write into its inputs, so every runtime, memory plan and backend
treats it like any other output.
"""

from __future__ import annotations

import dataclasses

import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.graph_signature import ExportGraphSignature, InputKind, OutputKind, OutputSpec

from pteforge.support.errors import ExportError


def return_written_arguments(program: ExportedProgram, method: str) -> tuple[int, ...]:
    """Turns `program`'s writes into its arguments into trailing outputs, in place.

    Args:
      program: a functionalized ExportedProgram (after run_decompositions).
      method: its name, for messages.

    Returns:
      The argument indices written, in the order their values now follow the
      method's own outputs (empty if the method writes none of its arguments).
    """
    signature = program.graph_signature
    specs = list(signature.output_specs)
    mutations = [index for index, spec in enumerate(specs) if spec.kind == OutputKind.USER_INPUT_MUTATION]
    if not mutations:
        return ()
    user_inputs = [spec.arg.name for spec in signature.input_specs if spec.kind == InputKind.USER_INPUT]
    written = []
    for index in mutations:
        target = specs[index].target
        if target not in user_inputs:
            raise ExportError(
                f"writes into '{target}', which is not one of its arguments ({', '.join(user_inputs)}); "
                "pteforge cannot say which argument the caller would see change",
                method=method,
            )
        written.append(user_inputs.index(target))

    output_node = program.graph.output_node()
    values = list(output_node.args[0])
    kept = [index for index in range(len(specs)) if index not in mutations]
    output_node.args = (tuple(values[index] for index in kept) + tuple(values[index] for index in mutations),)
    new_specs = [specs[index] for index in kept] + [
        OutputSpec(kind=OutputKind.USER_OUTPUT, arg=specs[index].arg, target=None) for index in mutations
    ]
    program._graph_signature = ExportGraphSignature(input_specs=list(signature.input_specs), output_specs=new_specs)
    _append_leaves_to_out_spec(program, len(mutations))
    program.graph_module.recompile()
    return tuple(written)


def _append_leaves_to_out_spec(program: ExportedProgram, count: int) -> None:
    """The method's outputs become (its own outputs, written_0, ..., written_k-1)."""
    entries = list(program.module_call_graph)
    root = entries[0]
    old = root.signature.out_spec
    own = pytree.tree_unflatten([object() for _ in range(old.num_leaves)], old)  # any leaves
    new = pytree.tree_structure((own, *(object() for _ in range(count))))
    entries[0] = dataclasses.replace(root, signature=dataclasses.replace(root.signature, out_spec=new))
    program._module_call_graph = entries
