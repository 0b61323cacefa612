"""From traced methods to edge dialect, with what each backend delegates.

  to_edge_and_lower  edge dialect + backend delegation (XNNPACK guarded so it never
                     takes state as constant data, its norms' means and dynamic
                     reshapes in forms it delegates: xnnpack_means.py,
                     xnnpack_reshapes.py); for cortex_m, linear layers on pteforge's
                     CMSIS-NN operators first (pteforge.cortex_m); on the portable
                     kernels, constant subgraphs folded (fold.py).

The exporter then checks that no delegate took state (pteforge.verify.delegated_state)
and plans and emits the program (pteforge.emit.emission).
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from executorch.exir import EdgeCompileConfig, EdgeProgramManager, to_edge_transform_and_lower
from torch.export import ExportedProgram

from pteforge.lower.fold import fold_constants
from pteforge.lower.parallel_lowering import lower_methods
from pteforge.lower.xnnpack_means import means_as_pooling
from pteforge.lower.xnnpack_reshapes import reshapes_with_one_inferred_size
from pteforge.support.spec import Backend


def _partitioners(backend: Backend, state: Collection[str]) -> list:
    if backend != "xnnpack":
        return []
    # Imported only when asked for: it pulls in torchao and the XNNPACK tooling.
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from pteforge.lower.partitioners import SharedStateGuard

    return [SharedStateGuard(XnnpackPartitioner(), state)]


def to_edge_and_lower(
    programs: Mapping[str, ExportedProgram],
    constants: Mapping[str, Any],
    backend: Backend,
    state: Collection[str],
    jobs: int = 1,
) -> EdgeProgramManager:
    """Converts every method to edge dialect and delegates what `backend` takes, the
    methods split over up to `jobs` processes (parallel_lowering.py)."""

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
    if backend != "xnnpack":
        # XNNPACK packs its weights itself; the portable kernels would transpose every
        # linear layer's weight on every call.
        fold_constants(edge, programs.keys(), state)
    return edge
