"""The metadata pteforge stores in each .pte, as a constant method returning text.

Loaders (pteforge.run.runtime in Python, the C++ Session in cc/runtime) read it to know the
state buffers in `get_state` order and which generated methods exist, without parsing
the program's flatbuffer. It holds nothing that depends on memory planning, so it is
known before the program is emitted.

The format is line-based so that C++ parses it in a few lines (cc/runtime/metadata.cc):

    pteforge-metadata 1
    method set_cache                       user methods, in registration order
    constant max_rows                      user constants
    reset_state reset_state                the generated methods (absent without state)
    get_state get_state
    state cache shared float32 [4,8]       state buffers, in get_state order
    state calls private int64 [1]
    input set_cache 0 float32 [1..4,8]     tensor inputs of user methods: each dimension
                                           static (8) or dynamic with bounds (1..4)
    writes get_cache 0                     an argument the method writes in place: its
                                           final value follows the method's own outputs,
                                           in the order of these lines
                                           (capture/written_arguments.py)
    name set_cache input 0 rows            a flat input's or output's name: its path in
    name g output 1 ['b']                  the arguments or in the result (the rest of the
                                           line, spaces included); none for a single output
    in_spec g [1, {"type": ...}]           the treespecs of the positional arguments (a
    out_spec g [1, {"type": ...}]          tuple) and of the result, as
                                           torch.utils._pytree.treespec_dumps writes them

Every input, output and `writes` index counts flat values: a method's arguments and
result may be tuples, lists and dicts of tensors, which the program takes and returns
flattened in torch.utils._pytree order (`xs[0]`, `xs[1]`, then the next argument).

Formats 1 (no `writes` lines) and 2 (no `name`, `in_spec`, `out_spec` lines) are still
read; a reader of an older format refuses format 3 by its header.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import torch.utils._pytree as pytree

from pteforge.support.spec import GET_STATE_METHOD, RESET_STATE_METHOD

METADATA_METHOD = "pteforge_metadata"
HEADER = "pteforge-metadata 3"
_READABLE = (HEADER, "pteforge-metadata 2", "pteforge-metadata 1")


@dataclasses.dataclass(frozen=True)
class StateEntry:
    """One state buffer as the metadata describes it."""

    name: str
    shared: bool
    dtype: str
    shape: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class InputEntry:
    """A tensor input of a user method: per dimension, (min, max) sizes (equal if static)."""

    method: str
    index: int
    dtype: str
    bounds: tuple[tuple[int, int], ...]


@dataclasses.dataclass(frozen=True)
class Metadata:
    """Decoded metadata (see the module docstring)."""

    methods: tuple[str, ...]
    constants: tuple[str, ...]
    reset_state: str | None
    get_state: str | None
    state: tuple[StateEntry, ...]
    inputs: tuple[InputEntry, ...]
    writes: Mapping[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    # (method, "input" or "output", flat index) -> the value's name.
    names: Mapping[tuple[str, str, int], str] = dataclasses.field(default_factory=dict)
    in_specs: Mapping[str, str] = dataclasses.field(default_factory=dict)  # treespec_dumps text
    out_specs: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def written_args(self, method: str) -> tuple[int, ...]:
        """The flat inputs `method` writes, in the order their values follow its outputs."""
        return self.writes.get(method, ())

    def name(self, method: str, kind: str, index: int) -> str:
        """The name of `method`'s flat input or output `index` (kind "input" or
        "output"): `xs[1]`, `['h']`; "" if the metadata gives none."""
        return self.names.get((method, kind, index), "")

    def in_spec(self, method: str) -> pytree.TreeSpec | None:
        """The structure of `method`'s positional arguments (a tuple), or None (format 2)."""
        text = self.in_specs.get(method)
        return pytree.treespec_loads(text) if text is not None else None

    def out_spec(self, method: str) -> pytree.TreeSpec | None:
        """The structure of what `method` returns, or None (format 2)."""
        text = self.out_specs.get(method)
        return pytree.treespec_loads(text) if text is not None else None


def encode(
    user_methods: Mapping[str, Mapping[str, Any]], state: Sequence, constants: Sequence[str],
    generated: Mapping[str, str] | None = None,
) -> str:
    """Metadata text for a program.

    Args:
      user_methods: the user's entry points in registration order, each with its
        signature (pteforge.capture.signature.method_signature), including "writes".
      state: StateBuffer objects, in get_state order.
      constants: names of the user's constant methods.
      generated: the names the generated methods have in this program
        (pteforge.support.spec.generated_method_names), by role; default the usual ones.
    """
    generated = generated or {RESET_STATE_METHOD: RESET_STATE_METHOD, GET_STATE_METHOD: GET_STATE_METHOD}
    lines = [HEADER]
    lines += [f"method {name}" for name in user_methods]
    lines += [f"constant {name}" for name in constants]
    if state:
        lines.append(f"reset_state {generated[RESET_STATE_METHOD]}")
        lines.append(f"get_state {generated[GET_STATE_METHOD]}")
    for buffer in state:
        dtype = str(buffer.initial.dtype).removeprefix("torch.")
        shape = ",".join(str(size) for size in buffer.initial.shape)
        kind = "shared" if buffer.shared else "private"
        lines.append(f"state {buffer.name} {kind} {dtype} [{shape}]")
    for method, signature in user_methods.items():
        for index, value in enumerate(signature["inputs"]):
            if "shape" not in value:
                continue  # not a tensor
            dims = [
                f"{dim['min']}..{dim['max']}" if isinstance(dim, dict) else str(dim)
                for dim in value["shape"]
            ]
            lines.append(f"input {method} {index} {value['dtype']} [{','.join(dims)}]")
    for method, signature in user_methods.items():
        lines += [f"writes {method} {index}" for index in signature.get("writes", ())]
    for method, signature in user_methods.items():
        for kind in ("input", "output"):
            for index, value in enumerate(signature.get(kind + "s", ())):
                name = value.get("name", "")
                if "\n" in name:
                    raise ValueError(f"method '{method}': {kind} name {name!r} spans lines")
                if name:
                    lines.append(f"name {method} {kind} {index} {name}")
        for key in ("in_spec", "out_spec"):
            if signature.get(key) is not None:
                lines.append(f"{key} {method} {signature[key]}")
    return "\n".join(lines) + "\n"


def decode(text: str) -> Metadata:
    """Parses metadata text.

    Raises:
      ValueError: not pteforge metadata, or a format this version does not read.
    """
    lines = text.splitlines()
    if not lines or lines[0] not in _READABLE:
        raise ValueError(
            f"not pteforge metadata of a supported format (expected '{HEADER}', got "
            f"'{lines[0] if lines else ''}'); re-export the model with this pteforge"
        )
    methods, constants, state, inputs = [], [], [], []
    writes: dict[str, list[int]] = {}
    names: dict[tuple[str, str, int], str] = {}
    specs: dict[str, dict[str, str]] = {"in_spec": {}, "out_spec": {}}
    generated: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split(" ")
        kind = fields[0]
        if kind in ("method", "constant", "reset_state", "get_state") and len(fields) == 2:
            {"method": methods, "constant": constants}.get(kind, []).append(fields[1])
            if kind in ("reset_state", "get_state"):
                generated[kind] = fields[1]
        elif kind == "state" and len(fields) == 5 and fields[4].startswith("[") and fields[4].endswith("]"):
            shape = tuple(int(size) for size in fields[4][1:-1].split(",") if size)
            state.append(StateEntry(fields[1], fields[2] == "shared", fields[3], shape))
        elif kind == "input" and len(fields) == 5 and fields[4].startswith("[") and fields[4].endswith("]"):
            bounds = []
            for dim in (d for d in fields[4][1:-1].split(",") if d):
                low, _, high = dim.partition("..")
                bounds.append((int(low), int(high or low)))
            inputs.append(InputEntry(fields[1], int(fields[2]), fields[3], tuple(bounds)))
        elif kind == "writes" and len(fields) == 3 and fields[2].isdigit():
            writes.setdefault(fields[1], []).append(int(fields[2]))
        elif (kind == "name" and len(fields) >= 5 and fields[2] in ("input", "output") and fields[3].isdigit()
              and fields[4]):
            names[(fields[1], fields[2], int(fields[3]))] = line.split(" ", 4)[4]
        elif kind in specs and len(fields) >= 3 and fields[1]:
            specs[kind][fields[1]] = line.split(" ", 2)[2]
        else:
            raise ValueError(f"pteforge metadata line {number} is malformed: {line!r}")
    return Metadata(tuple(methods), tuple(constants), generated.get("reset_state"),
                    generated.get("get_state"), tuple(state), tuple(inputs),
                    {method: tuple(indices) for method, indices in writes.items()},
                    names, specs["in_spec"], specs["out_spec"])
