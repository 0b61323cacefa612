"""Constant folding for programs on the portable kernels.

torch.export decomposes `F.linear(x, W)` into `addmm(b, x, permute_copy(W))`: on the
portable kernels (no XNNPACK, e.g. on a microcontroller) every call then transposes
every weight again, which was half of a Bergamot sentence's time and a weight-sized
buffer in the work arena. ExecuTorch's constant_prop_pass computes such constant
subgraphs once, at export, and stores the results as constants.

One correction for pteforge: the pass takes a buffer for a constant when the method at
hand does not mutate it, but a state buffer that one method only reads is written by
another (FINDINGS.md: shared state). State buffers are never folded.
"""

from __future__ import annotations

import contextlib
from typing import Collection, Iterator

from executorch.exir import EdgeProgramManager
from executorch.exir.passes import constant_prop_pass as constant_prop_module


@contextlib.contextmanager
def _state_is_not_constant(state: Collection[str]) -> Iterator[None]:
    original = constant_prop_module.is_constant_buffer

    def is_constant_buffer(program, node) -> bool:
        fqn = program.graph_signature.inputs_to_buffers.get(node.target)
        return fqn not in state and original(program, node)

    # The pass looks the function up in its module at each call.
    constant_prop_module.is_constant_buffer = is_constant_buffer
    try:
        yield
    finally:
        constant_prop_module.is_constant_buffer = original


def fold_constants(edge: EdgeProgramManager, methods: Collection[str], state: Collection[str]) -> None:
    """Replaces every constant subgraph of `methods` by its value, state excepted."""
    with _state_is_not_constant(set(state)):
        for method in methods:
            constant_prop_module.constant_prop_pass(edge.exported_program(method), _skip_dim_order=False)
