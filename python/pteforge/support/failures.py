"""Internal failures of torch / ExecuTorch turned into ExportErrors that name the method.

Lowering and emission run on all methods at once, so an exception from inside them
does not say which method caused it. `blame_method` runs the failed stage again on
one method at a time; the first that fails alone is named, with its own (more
specific) error. The original exception is kept as the ExportError's cause.
"""

from __future__ import annotations

import logging
import re
from typing import Callable, Iterable

from pteforge.support.errors import ExportError

_log = logging.getLogger("pteforge")

# (pattern in the exception's text, what it means for the user and what to do)
_KNOWN = [
    (re.compile(r"is already in the inputs|pass through arguments", re.I),
     "XNNPACK cannot return one of its inputs unchanged as an output. Export with "
     "backend='portable', or compute the returned value outside the delegated part "
     "(e.g. return a clone)."),
    (re.compile(r"xnnpack", re.I),
     "the XNNPACK delegate could not lower part of this method. Export with "
     "backend='portable' (every operator then runs on ExecuTorch's portable kernels)."),
    (re.compile(r"[Mm]issing out variants?|no out variant|out= variant"),
     "an operator in this method has no ExecuTorch kernel. Rewrite it with common "
     "tensor operations, or move it out of the exported method."),
    (re.compile(r"Unsupported dtype|not supported for dtype|dtype .* not supported", re.I),
     "a tensor of this method has a dtype ExecuTorch does not support here. Use "
     "float32, int64 or bool for it."),
]


_ARGUMENT_TYPE_LINE = re.compile(r"\] arg \d+ with type id \d+$")


def explain(stage: str, error: BaseException, method: str | None = None,
            buffer: str | None = None) -> ExportError:
    """An ExportError for an unexpected exception raised by `stage`."""
    if isinstance(error, ExportError):
        return error
    text = str(error).strip()
    first_line = text.splitlines()[0][:300] if text else ""
    hint = next((advice for pattern, advice in _KNOWN if pattern.search(text)), None)
    if hint is None:
        hint = ("pteforge does not know this failure. Under XNNPACK, try backend='portable'; "
                "otherwise simplify the method to find the operation responsible, and report it "
                "with the model.")
    log = getattr(error, "log", "")  # what ExecuTorch's runtime printed (pteforge.run.runtime)
    # The kernel's own reason comes first; the list of argument type ids after it says little.
    lines = [line for line in log.splitlines() if not _ARGUMENT_TYPE_LINE.search(line)]
    said = f" ExecuTorch said: {' | '.join(lines[-4:])}" if lines else ""
    return ExportError(
        f"{stage} failed ({type(error).__name__}: {first_line}).{said} {hint}", method=method, buffer=buffer)


def blame_method(stage: str, error: BaseException, methods: Iterable[str],
                 run_alone: Callable[[str], None]) -> ExportError:
    """Finds the method whose own run of `stage` (run_alone) fails and explains that
    failure; without one, explains `error` as a failure of the methods together."""
    if isinstance(error, ExportError):
        return error
    _log.info("%s failed; retrying one method at a time to find the cause", stage)
    for method in methods:
        try:
            run_alone(method)
        except Exception as own:  # noqa: BLE001 (any failure of the stage is the answer)
            explained = explain(stage, own, method=method)
            explained.__cause__ = own
            return explained
    together = explain(stage, error)
    return ExportError(f"{together} (each method alone passes this stage; it fails only with all of them)")
