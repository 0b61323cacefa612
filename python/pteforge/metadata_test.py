"""The metadata text round-trips and malformed text is refused with the line number."""

import torch

from pteforge import metadata, testing
from pteforge.state import StateBuffer

import pytest


def test_round_trip():
    state = [
        StateBuffer("cache", True, torch.zeros(4, 8), ("set",)),
        StateBuffer("calls", False, torch.zeros(1, dtype=torch.int64), ("set",)),
    ]
    signatures = {
        "set": {"inputs": [{"dtype": "float32", "shape": [{"dim": "s0", "min": 1, "max": 4}, 8]}, {"type": "int"}]},
        "get": {"inputs": []},
    }
    text = metadata.encode(signatures, state, ["max_rows"])
    decoded = metadata.decode(text)
    assert decoded.methods == ("set", "get")
    assert decoded.constants == ("max_rows",)
    assert (decoded.reset_state, decoded.get_state) == ("reset_state", "get_state")
    assert decoded.state == (
        metadata.StateEntry("cache", True, "float32", (4, 8)),
        metadata.StateEntry("calls", False, "int64", (1,)),
    )
    assert decoded.inputs == (metadata.InputEntry("set", 0, "float32", ((1, 4), (8, 8))),)
    assert "input set 0 float32 [1..4,8]\n" in text


def test_stateless_program_has_no_generated_methods():
    decoded = metadata.decode(metadata.encode({"f": {"inputs": []}}, [], []))
    assert decoded.reset_state is None and decoded.state == ()


@pytest.mark.parametrize("text, message", [
    ("hello\n", "not pteforge metadata of a supported format"),
    ("pteforge-metadata 1\nstate cache shared float32\n", "line 2 is malformed"),
    ("pteforge-metadata 1\nmethod a\nwhatever x y\n", "line 3 is malformed"),
])
def test_malformed_text_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        metadata.decode(text)


if __name__ == "__main__":
    testing.main(__file__)
