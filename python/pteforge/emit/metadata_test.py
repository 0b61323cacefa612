"""The metadata text round-trips and malformed text is refused with the line number."""

import torch
import torch.utils._pytree as pytree

from pteforge.emit import metadata
from pteforge.state.state import StateBuffer
from pteforge.support import testing

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


def test_names_and_structures_round_trip():
    in_spec = pytree.tree_structure(({"a b": 0, "c": 1}, [2, 3]))
    out_spec = pytree.tree_structure({"h": 0, "b": (1, 2)})
    signatures = {"g": {
        "inputs": [{"dtype": "float32", "shape": [3], "name": n} for n in ("d['a b']", "d['c']", "xs[0]", "xs[1]")],
        "outputs": [{"dtype": "float32", "shape": [3], "name": n} for n in ("['h']", "['b'][0]", "['b'][1]")],
        "writes": [3],
        "in_spec": pytree.treespec_dumps(in_spec),
        "out_spec": pytree.treespec_dumps(out_spec),
    }, "f": {"inputs": [], "outputs": [{"dtype": "float32", "shape": [3], "name": ""}]}}
    text = metadata.encode(signatures, [], [])
    assert text.startswith("pteforge-metadata 3\n")
    assert "name g input 0 d['a b']\n" in text and "name g output 2 ['b'][1]\n" in text
    assert "name f output" not in text  # a single output has no name
    decoded = metadata.decode(text)
    assert decoded.name("g", "input", 0) == "d['a b']" and decoded.name("g", "output", 1) == "['b'][0]"
    assert decoded.name("f", "output", 0) == ""
    assert decoded.written_args("g") == (3,)
    assert decoded.in_spec("g") == in_spec and decoded.out_spec("g") == out_spec
    assert decoded.out_spec("f") is None


def test_format_2_is_still_read():
    decoded = metadata.decode("pteforge-metadata 2\nmethod get\ninput get 0 float32 [4]\nwrites get 0\n")
    assert decoded.methods == ("get",) and decoded.written_args("get") == (0,)
    assert decoded.name("get", "input", 0) == "" and decoded.out_spec("get") is None


def test_stateless_program_has_no_generated_methods():
    decoded = metadata.decode(metadata.encode({"f": {"inputs": []}}, [], []))
    assert decoded.reset_state is None and decoded.state == ()


@pytest.mark.parametrize("text, message", [
    ("hello\n", "not pteforge metadata of a supported format"),
    ("pteforge-metadata 1\nstate cache shared float32\n", "line 2 is malformed"),
    ("pteforge-metadata 1\nmethod a\nwhatever x y\n", "line 3 is malformed"),
    ("pteforge-metadata 3\nname a inout 0 x\n", "line 2 is malformed"),
    ("pteforge-metadata 3\nname a input 0\n", "line 2 is malformed"),
    ("pteforge-metadata 3\nout_spec a\n", "line 2 is malformed"),
    ("pteforge-metadata 4\nmethod a\n", "not pteforge metadata of a supported format"),
])
def test_malformed_text_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        metadata.decode(text)


if __name__ == "__main__":
    testing.main(__file__)
