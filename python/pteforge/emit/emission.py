"""From edge dialect to one ExecuTorch program: memory planning and serialization.

  plan_and_emit  state written straight from another buffer copied first
                 (state_sources.py), state updates made in place (inplace_state.py),
                 memory planning with shared mutable buffers (one place per state
                 buffer name, memory id 2, in every method) and serialization.
"""

from __future__ import annotations

from typing import Any

from executorch.exir import EdgeProgramManager, ExecutorchBackendConfig, ExecutorchProgramManager
from executorch.exir.memory_planning import _alias_inplace_result_specs, _is_inplace_node
from executorch.exir.passes import MemoryPlanningPass
from executorch.exir.passes.replace_view_copy_with_view_pass import _ViewSpec
from executorch.exir.tensor import TensorSpec
import torch
import torch.utils._pytree as pytree

from pteforge.emit.inplace_state import update_state_in_place
from pteforge.emit.state_sources import copy_state_sources
from pteforge.support import failures


class _MemoryPlanning(MemoryPlanningPass):
    """ExecuTorch's memory planning, after clearing requires_grad in every value's spec.

    The runtime ignores the flag; the .pte would record for each value whether it was
    traced from a parameter, which a method lowered in another process
    (lower/parallel_lowering.py) no longer knows. Cleared, the file is the same bytes
    however many processes lowered it.
    """

    def run(self, graph_module: torch.fx.GraphModule, graph_signature: Any = None) -> Any:
        for node in graph_module.graph.nodes:
            for spec in pytree.tree_leaves(node.meta.get("spec")):
                if isinstance(spec, TensorSpec):
                    spec.requires_grad = False
        _views_follow_in_place_results(graph_module)
        return super().run(graph_module, graph_signature)


def _views_follow_in_place_results(graph_module: torch.fx.GraphModule) -> None:
    """Makes a view of an in-place operator's result a view of the memory it writes.

    ExecuTorch's planner gives an in-place operator's result the spec of the tensor it
    writes (index_put_'s result is the state buffer), but only while planning, after
    its views were made: a view (et_view) of the result keeps the result's own spec,
    which is never planned, and reads whatever lies at its unplanned offset. A method
    reading its updated KV cache through a reshape on the portable kernels got NaN
    (inplace_state_test). Aliasing first, as the planner will, and re-basing the
    views on the aliased spec gives them the buffer's memory.
    """
    for node in graph_module.graph.nodes:
        if not _is_inplace_node(node):
            continue
        before = node.meta.get("spec")
        _alias_inplace_result_specs(node)  # what planning does; the same again there
        after = node.meta.get("spec")
        if after is before or not isinstance(after, TensorSpec):
            continue
        for user in node.users:
            view = user.meta.get("spec")
            if isinstance(view, _ViewSpec) and view._base is before:
                user.meta["spec"] = _ViewSpec(after, list(view.shape))


def plan_and_emit(edge: EdgeProgramManager) -> ExecutorchProgramManager:
    """Plans memory (state shared across methods by name) and serializes the program."""
    for method in edge.methods:
        try:
            copy_state_sources(edge.exported_program(method))
            update_state_in_place(edge.exported_program(method))
        except Exception as error:
            raise failures.explain("preparing the state updates", error, method=method) from error
    return edge.to_executorch(
        ExecutorchBackendConfig(
            memory_planning_pass=_MemoryPlanning(share_mutable_buffers=True),
            # The names are how pteforge (and the C++ Session) find each state buffer.
            emit_mutable_buffer_names=True,
        )
    )
