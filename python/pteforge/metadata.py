"""The metadata pteforge stores in each .pte, as a constant method returning JSON.

Loaders (pteforge.runtime in Python, the C++ Session) read it to know the state buffers
in `get_state` order and which generated methods exist, without parsing the program's
flatbuffer. It holds nothing that depends on memory planning, so it is known before
the program is emitted.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from pteforge.spec import GET_STATE_METHOD, RESET_STATE_METHOD

METADATA_METHOD = "pteforge_metadata"
FORMAT_VERSION = 1


def encode(
    user_methods: Sequence[str],
    state: Sequence[Any],
    constants: Sequence[str],
) -> str:
    """JSON text describing the program (sorted keys: the .pte stays deterministic).

    Args:
      user_methods: the user's entry points, in registration order.
      state: the StateBuffer list, in get_state order.
      constants: names of the user's constant methods.
    """
    document = {
        "format": FORMAT_VERSION,
        "methods": list(user_methods),
        "constants": list(constants),
        "reset_state": RESET_STATE_METHOD if state else None,
        "get_state": GET_STATE_METHOD if state else None,
        "state": [
            {
                "name": buffer.name,
                "shared": buffer.shared,
                "dtype": str(buffer.initial.dtype).removeprefix("torch."),
                "shape": list(buffer.initial.shape),
            }
            for buffer in state
        ],
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def decode(text: str) -> dict[str, Any]:
    """Parses metadata text, checking its format version."""
    document = json.loads(text)
    if document.get("format") != FORMAT_VERSION:
        raise ValueError(
            f"pteforge metadata format {document.get('format')!r} is not supported "
            f"(this pteforge reads format {FORMAT_VERSION}); re-export the model"
        )
    return document
