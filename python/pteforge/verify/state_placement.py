"""Verification (a): every state buffer has one place in the program.

With share_mutable_buffers, ExecuTorch's planner gives each state buffer name a fixed
offset in memory id 2 for every method. This check reads the emitted plan and fails
the export if any method that uses a state buffer sees it elsewhere, or not at all
(then the method would read a baked copy that never changes: FINDINGS.md).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from pteforge.emit.plan import STATE_MEMORY_ID, MethodPlan, Placement
from pteforge.state.state import StateBuffer
from pteforge.support.errors import ExportError


def check_state_placement(
    plans: Mapping[str, MethodPlan],
    state: Sequence[StateBuffer],
    generated_methods: Sequence[str],
) -> dict[str, Placement]:
    """Checks placements; returns each state buffer's placement.

    Args:
      plans: the emitted memory plan per method.
      state: the state buffers, with the user methods that use each.
      generated_methods: pteforge's methods, which use every state buffer.

    Raises:
      ExportError: naming the method and the buffer whose placement is wrong.
    """
    placements: dict[str, Placement] = {}
    for buffer in state:
        seen: dict[str, Placement] = {}
        for method in (*buffer.methods, *generated_methods):
            placement = plans[method].named.get(buffer.name)
            if placement is None:
                raise ExportError(
                    "the method uses this state buffer but the program gives it no place in "
                    "the shared state memory, so it would read a copy frozen at export time. "
                    "Check that every method reaches the buffer under the same name.",
                    method=method,
                    buffer=buffer.name,
                )
            if placement.memory_id != STATE_MEMORY_ID:
                raise ExportError(
                    f"the state buffer is planned in memory id {placement.memory_id}, not the "
                    f"shared state memory ({STATE_MEMORY_ID}); another method's call would "
                    "overwrite it.",
                    method=method,
                    buffer=buffer.name,
                )
            seen[method] = placement
        distinct = {(p.memory_id, p.offset) for p in seen.values()}
        if len(distinct) != 1:
            where = ", ".join(f"{m}: offset {p.offset}" for m, p in seen.items())
            raise ExportError(
                f"the state buffer has different places in different methods ({where}), so "
                "they would not see each other's writes.",
                buffer=buffer.name,
            )
        placements[buffer.name] = next(iter(seen.values()))
    return placements
