"""What each method of an ExecuTorch program runs per call: its instructions counted by
the operator they call, or as a delegate call. The report (pteforge.report) and the tests
(pteforge.support.testing) read programs through it; it imports nothing heavy.
"""

from __future__ import annotations

import collections
from typing import Any

# What instruction_counts calls an instruction that runs a delegate.
DELEGATE = "delegate"


def instruction_counts(program: Any) -> dict[str, collections.Counter]:
    """For each method of an ExecuTorch program (exir.schema.Program), how many of its
    instructions call each operator ("aten::index_put_", "aten::add.out") or a delegate
    (DELEGATE). A method's instructions run once per call, in order, so these are also
    the operators and delegate calls of one call."""
    counts = {}
    for plan in program.execution_plan:
        names = [f"{op.name}{'.' + op.overload if op.overload else ''}" for op in plan.operators]
        counts[plan.name] = collections.Counter(
            names[instruction.instr_args.op_index] if hasattr(instruction.instr_args, "op_index") else DELEGATE
            for chain in plan.chains for instruction in chain.instructions
            if hasattr(instruction.instr_args, "op_index") or hasattr(instruction.instr_args, "delegate_index"))
    return counts
