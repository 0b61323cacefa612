"""pteforge's own operators as torch.library definitions: from one schema and one eager
reference, the functional form (what torch.export captures and eager PyTorch runs) and
the `.out` form ExecuTorch's runtime calls (pteforge.cortex_m.ops,
pteforge.cortex_m.stft_op, pteforge.seq2seq.attention_op)."""

from __future__ import annotations

from typing import Callable


def define(library, name: str, schema: str, reference: Callable, fake: Callable) -> str:
    """Defines `schema` ("<name>(...) -> Tensor") and its out variant in `library` (a
    torch.library.Library), run by `reference` in eager PyTorch and by `fake` when
    tracing (the result's shape and dtype); returns how a program names the operator,
    "<namespace>::<name>.out"."""
    import torch

    library.define(schema)
    head = schema.split(" -> ")[0]
    library.define(head.replace(f"{name}(", f"{name}.out(", 1)[:-1] + ", *, Tensor(a!) out) -> Tensor(a!)")

    def out_variant(*args, out: torch.Tensor) -> torch.Tensor:
        result = reference(*args)
        out.resize_(result.shape).copy_(result)
        return out

    torch.library.impl(library, name, "CompositeExplicitAutograd")(reference)
    torch.library.impl(library, f"{name}.out", "CompositeExplicitAutograd")(out_variant)
    torch.library.register_fake(f"{library.ns}::{name}", lib=library)(fake)
    return f"{library.ns}::{name}.out"
