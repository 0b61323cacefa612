"""From traced methods to one ExecuTorch program: edge dialect, delegation, planning.

Two steps, timed separately by the exporter:
  to_edge_and_lower  edge dialect + backend delegation (XNNPACK guarded so it never
                     takes state as constant data, its norms' means and dynamic
                     reshapes in forms it delegates: xnnpack_means.py,
                     xnnpack_reshapes.py), then a check that no delegate did;
                     for cortex_m, linear layers on pteforge's CMSIS-NN operators first
                     (pteforge.cortex_m); on the portable kernels, constant subgraphs
                     folded (fold.py);
  plan_and_emit      state written straight from another buffer copied first
                     (state_sources.py), state updates made in place (inplace_state.py), memory planning
                     with shared mutable buffers (one place per state buffer name,
                     memory id 2, in every method) and serialization.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from executorch.exir import (
    EdgeCompileConfig,
    EdgeProgramManager,
    ExecutorchBackendConfig,
    ExecutorchProgramManager,
    to_edge_transform_and_lower,
)
from executorch.exir.memory_planning import _alias_inplace_result_specs, _is_inplace_node
from executorch.exir.passes import MemoryPlanningPass
from executorch.exir.passes.replace_view_copy_with_view_pass import _ViewSpec
from executorch.exir.tensor import TensorSpec
import torch
from torch.export import ExportedProgram
import torch.utils._pytree as pytree

from pteforge import failures
from pteforge.errors import ExportError
from pteforge.fold import fold_constants
from pteforge.inplace_state import update_state_in_place
from pteforge.parallel_lowering import lower_methods
from pteforge.state_sources import copy_state_sources
from pteforge.spec import Backend
from pteforge.xnnpack_means import means_as_pooling
from pteforge.xnnpack_reshapes import reshapes_with_one_inferred_size


def _partitioners(backend: Backend, state: Collection[str]) -> list:
    if backend != "xnnpack":
        return []
    # Imported only when asked for: it pulls in torchao and the XNNPACK tooling.
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from pteforge.partitioners import SharedStateGuard

    return [SharedStateGuard(XnnpackPartitioner(), state)]


def to_edge_and_lower(
    programs: Mapping[str, ExportedProgram],
    constants: Mapping[str, Any],
    backend: Backend,
    state: Collection[str],
    jobs: int = 1,
) -> EdgeProgramManager:
    """Converts every method to edge dialect and delegates what `backend` takes, the
    methods split over up to `jobs` processes (parallel_lowering.py).

    Raises:
      ExportError: a delegate still owns a state buffer as constant data.
    """

    if backend == "cortex_m":
        # Imported only when asked for, like XNNPACK's tooling.
        from pteforge.cortex_m.lowering import use_cmsis_nn

        for program in programs.values():
            use_cmsis_nn(program)

    if backend == "xnnpack":
        for program in programs.values():
            means_as_pooling(program)
            reshapes_with_one_inferred_size(program)

    def lower(group: Mapping[str, ExportedProgram]) -> dict[str, ExportedProgram]:
        edge = to_edge_transform_and_lower(dict(group), partitioner=_partitioners(backend, state))
        return {name: edge.exported_program(name) for name in group}

    edge = EdgeProgramManager(
        lower_methods(programs, lower, jobs),
        constant_methods=dict(constants) or None,
        # As EdgeProgramManager.to_backend builds its result: delegated programs are
        # no longer pure edge dialect (the lowering checked them before delegation).
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    check_no_delegate_owns_state(edge, programs.keys(), state)
    if backend != "xnnpack":
        # XNNPACK packs its weights itself; the portable kernels would transpose every
        # linear layer's weight on every call.
        fold_constants(edge, programs.keys(), state)
    return edge


def check_no_delegate_owns_state(
    edge: EdgeProgramManager, methods: Collection[str], state: Collection[str]
) -> None:
    """Verification (b): no delegate consumed a state buffer as constant data.

    A lowered module lists the parameters and buffers it took as constants in its
    original program's signature; a state buffer there would be frozen at export time.
    """
    for method in methods:
        program = edge.exported_program(method)
        for _, child in program.graph_module.named_children():
            original = getattr(child, "original_module", None)
            if original is None:
                continue
            owned = set(original.graph_signature.inputs_to_buffers.values()) & set(state)
            for buffer in sorted(owned):
                raise ExportError(
                    f"the {getattr(child, 'backend_id', 'backend')} delegate took this "
                    "state buffer as constant data, so the method would never see updates. "
                    "Export with backend='portable', or use the buffer so it stays a "
                    "runtime input (x @ buffer.t() rather than F.linear(x, buffer)).",
                    method=method,
                    buffer=buffer,
                )


class _MemoryPlanning(MemoryPlanningPass):
    """ExecuTorch's memory planning, after clearing requires_grad in every value's spec.

    The runtime ignores the flag; the .pte would record for each value whether it was
    traced from a parameter, which a method lowered in another process
    (parallel_lowering.py) no longer knows. Cleared, the file is the same bytes however
    many processes lowered it.
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
