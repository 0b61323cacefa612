"""Verification (a) on hand-made plans: each way a state placement can be wrong."""

import torch

from pteforge import ExportError
from pteforge.emit.plan import MethodPlan, Placement
from pteforge.state.state import StateBuffer
from pteforge.support import testing
from pteforge.verify.state_placement import check_state_placement

import pytest

_CACHE = StateBuffer("cache", True, torch.zeros(4), ("a", "b"))


def _plans(a: Placement | None, b: Placement | None) -> dict[str, MethodPlan]:
    def plan(name, placement):
        return MethodPlan(name, (0, 64, 16), {"cache": placement} if placement else {})
    good = Placement(2, 0, 16)
    return {"a": plan("a", a), "b": plan("b", b), "get_state": plan("get_state", good)}


def test_one_place_in_every_method_passes():
    placements = check_state_placement(_plans(Placement(2, 0, 16), Placement(2, 0, 16)), [_CACHE], ["get_state"])
    assert placements == {"cache": Placement(2, 0, 16)}


def test_different_offsets_fail():
    with pytest.raises(ExportError, match=r"buffer 'cache': the state buffer has different places .*b: offset 32"):
        check_state_placement(_plans(Placement(2, 0, 16), Placement(2, 32, 16)), [_CACHE], ["get_state"])


def test_a_method_without_the_buffer_fails():
    with pytest.raises(ExportError, match=r"method 'b', buffer 'cache': .*frozen at export time"):
        check_state_placement(_plans(Placement(2, 0, 16), None), [_CACHE], ["get_state"])


def test_state_in_the_work_arena_fails():
    with pytest.raises(ExportError, match=r"method 'a', buffer 'cache': the state buffer is planned in memory id 1"):
        check_state_placement(_plans(Placement(1, 0, 16), Placement(2, 0, 16)), [_CACHE], ["get_state"])


if __name__ == "__main__":
    testing.main(__file__)
