"""State written straight from another buffer gets a copy of its own.

`self.h.copy_(self.h0)` (reset recurrent state from a stored initial value, h0 a buffer
no method mutates) functionalizes to a graph whose write-back of `h` is the placeholder
of `h0` itself, with no operator between. ExecuTorch's emission then mishandles that
aliasing: after the call the runtime's `h` was off by exactly `h0`. A clone between
the two makes the new value of `h` an ordinary computed tensor, which ExecuTorch
copies into the state as it does for any other update. (The same holds for a state
buffer written from a parameter, a constant, or another state buffer.)
"""

from __future__ import annotations

from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind, TensorArgument


def copy_state_sources(program: ExportedProgram) -> int:
    """Inserts a clone where a state write-back is a placeholder; returns how many."""
    graph = program.graph
    output = graph.find_nodes(op="output")[0]
    values = list(output.args[0])
    specs = program.graph_signature.output_specs
    inserted = 0
    for index, (value, spec) in enumerate(zip(values, specs)):
        if spec.kind != OutputKind.BUFFER_MUTATION or getattr(value, "op", None) != "placeholder":
            continue
        with graph.inserting_before(output):
            clone = graph.call_function(
                exir_ops.edge.dim_order_ops._clone_dim_order.default, (value,),
                {"dim_order": list(range(value.meta["val"].dim()))},
            )
        clone.meta["val"] = value.meta["val"]
        values[index] = clone
        spec.arg = TensorArgument(name=clone.name)
        inserted += 1
    if inserted:
        output.args = (tuple(values),)
        program.graph_module.recompile()
    return inserted
