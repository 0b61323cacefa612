"""Verification (b): no delegate took a state buffer as constant data."""

from __future__ import annotations

from typing import Collection

from executorch.exir import EdgeProgramManager

from pteforge.support.errors import ExportError


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
