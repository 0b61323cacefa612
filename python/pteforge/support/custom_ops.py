"""pteforge's own operators as torch.library definitions: from one schema and one eager
reference, the functional form (what torch.export captures and eager PyTorch runs) and
the `.out` form ExecuTorch's runtime calls (pteforge.cortex_m.ops,
pteforge.cortex_m.stft_op, pteforge.cortex_m.lstm_op, pteforge.lower.attention_op)."""

from __future__ import annotations

import re
from typing import Callable

_ALIASES = "abcdefgh"


def define(library, name: str, schema: str, reference: Callable, fake: Callable) -> str:
    """Defines `schema` ("<name>(...) -> Tensor", or "-> (Tensor x, Tensor y)" for several
    results) and its out variant in `library` (a torch.library.Library), run by
    `reference` in eager PyTorch and by `fake` when tracing (the results' shapes and
    dtypes); returns how a program names the operator, "<namespace>::<name>.out".

    The out variant takes one out tensor per result, after the arguments: `out` for a
    single result, else the results' names."""
    import torch

    library.define(schema)
    head, returns = schema.split(" -> ")
    results = re.findall(r"Tensor (\w+)", returns) if returns.startswith("(") else []
    if results:
        outs = [f"Tensor({alias}!) {result}" for alias, result in zip(_ALIASES, results)]
        out_returns = "(" + ", ".join(outs) + ")"
    else:
        outs, out_returns = ["Tensor(a!) out"], "Tensor(a!)"
    library.define(head.replace(f"{name}(", f"{name}.out(", 1)[:-1] + ", *, " + ", ".join(outs) + ") -> " + out_returns)

    def out_variant(*args, **outs: torch.Tensor):
        values = reference(*args)
        targets = [outs[result] for result in results] if results else [outs["out"]]
        for target, value in zip(targets, values if results else (values,)):
            target.resize_(value.shape).copy_(value)
        return tuple(targets) if results else targets[0]

    torch.library.impl(library, name, "CompositeExplicitAutograd")(reference)
    torch.library.impl(library, f"{name}.out", "CompositeExplicitAutograd")(out_variant)
    torch.library.register_fake(f"{library.ns}::{name}", lib=library)(fake)
    return f"{library.ns}::{name}.out"
