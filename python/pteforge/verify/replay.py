"""The conformance replay record: what the export's conformance check ran, as text.

Conformance runs a call sequence on eager PyTorch and on the ExecuTorch runtime and
compares them. With `export(..., record_replay=True)` it also writes down the calls
and everything eager PyTorch gave, so a program can be checked again where it finally
runs (a microcontroller, another runtime) against the eager values, not against
literals in a test. cc/replay reads it and replays it through a Session.

    pteforge-replay 1
    program stateful
    tolerance 1e-05 1e-05                  # "... scaled" for Tolerance(scaled=True)
    state cache full(0.5)[4,8]             # initial state (after reset_state)
    state calls values(0)[1]:int64
    call set_cache(full(2)[3,8])           # cc/cli/calls.h's call language; the flat
                                           # inputs (tuples, lists, dicts of tensors flattened)
    output 0 values(1)[1]:int64            # what eager returned
    written 0 values(...)[4,8]             # a flat input the method writes, as eager left it
    state cache values(2,2,...)[4,8]       # every state buffer after the call
    ...

Values use the call language's tensor literals: float32 with 9 significant digits and
float64 with 17, so the text gives back the exact values; uniform tensors as full(x).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from pteforge.capture.signature import dtype_name
from pteforge.support.errors import ExportError
from pteforge.support.spec import Call, Tolerance

FORMAT = "pteforge-replay 1"

# dtype -> printf format of one element; the dtypes cc/cli's tensor literals hold.
_ELEMENT_FORMATS = {
    torch.float32: "%.9g",
    torch.float64: "%.17g",
    # Every float16 and bfloat16 value is exact as a float32 with 9 significant digits.
    torch.float16: "%.9g",
    torch.bfloat16: "%.9g",
    torch.int64: "%d",
    torch.int32: "%d",
    torch.int16: "%d",
    torch.int8: "%d",
    torch.uint8: "%d",
    torch.bool: "%d",
}


def _number(x: float, element_format: str) -> str:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return element_format % x


def value_text(value: Any, what: str) -> str:
    """A tensor or scalar as a literal of cc/cli's call language."""
    if isinstance(value, torch.Tensor):
        element_format = _ELEMENT_FORMATS.get(value.dtype)
        if element_format is None:
            raise ExportError(
                f"{what}: a replay record cannot hold {dtype_name(value.dtype)} values "
                f"(it holds {', '.join(dtype_name(d) for d in _ELEMENT_FORMATS)}); "
                "export without record_replay"
            )
        shape = "[" + ",".join(str(size) for size in value.shape) + "]"
        suffix = "" if value.dtype == torch.float32 else ":" + dtype_name(value.dtype)
        flat = value.detach().reshape(-1).cpu()
        if flat.numel() == 0:
            return f"zeros{shape}{suffix}"
        if value.dtype in (torch.float16, torch.bfloat16):
            flat = flat.float()  # numpy has no bfloat16
        array = flat.numpy().astype(np.float64 if value.is_floating_point() else np.int64)
        if (array == array[0]).all() or (value.is_floating_point() and np.isnan(array).all()):
            return f"full({_number(array[0].item(), element_format)}){shape}{suffix}"
        if value.is_floating_point() and np.isfinite(array).all():
            numbers = np.char.mod(element_format, array)
        else:
            numbers = [_number(x, element_format) for x in array.tolist()]
        return f"values({','.join(numbers)}){shape}{suffix}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = _number(value, "%.17g")
        # A float the call language must not read back as an int.
        return text if any(c in text for c in ".eEnN") else text + ".0"
    raise ExportError(f"{what}: a replay record cannot hold a {type(value).__name__}")


class ReplayRecorder:
    """Collects the lines of a replay record while conformance runs."""

    def __init__(self, program: str, tolerance: Tolerance):
        scaled = " scaled" if tolerance.scaled else ""
        self._lines = [FORMAT, f"program {program}", f"tolerance {tolerance.atol!r} {tolerance.rtol!r}{scaled}"]

    def state(self, values: Mapping[str, torch.Tensor]) -> None:
        for name, value in values.items():
            self._lines.append(f"state {name} {value_text(value, f'state {name}')}")

    def call(self, call: Call, flat_args: Sequence[Any] | None = None) -> None:
        """A call, with its arguments flat as the program takes them (`flat_args`, the
        leaves of tuples, lists and dicts of tensors; default: call.args as they are)."""
        flat_args = call.args if flat_args is None else flat_args
        args = ", ".join(value_text(arg, f"{call.method} argument {i}") for i, arg in enumerate(flat_args))
        self._lines.append(f"call {call.method}({args})")

    def outputs(self, method: str, leaves: Sequence[Any]) -> None:
        for index, leaf in enumerate(leaves):
            if leaf is not None:
                self._lines.append(f"output {index} {value_text(leaf, f'{method} output {index}')}")

    def written(self, method: str, arguments: Sequence[tuple[int, Any]]) -> None:
        """The values eager PyTorch left in the arguments the method writes."""
        for index, value in arguments:
            self._lines.append(f"written {index} {value_text(value, f'{method} argument {index}')}")

    def text(self) -> str:
        return "\n".join(self._lines) + "\n"
