"""Random call sequences: reproducible, within the declared shapes and ranges, and
checked against eager PyTorch by MultiMethodExporter.check."""

import torch
from torch.export import Dim

from pteforge import ExportError, MultiMethodExporter
from pteforge.program.testing_models import Cache, cache_exporter
from pteforge.support import testing
from pteforge.support.spec import MethodSpec
from pteforge.verify.random_calls import random_calls

import pytest

_ROWS = Dim("rows", min=1, max=4)
_METHODS = [
    MethodSpec("pair", (torch.ones(2, 3), torch.ones(2), torch.tensor([3, 7])), ({0: _ROWS}, {0: _ROWS}, None)),
    MethodSpec("pick", (torch.tensor([0]), torch.tensor([True])), None, {0: (0, 9)}),
    MethodSpec("fixed", (torch.ones(5), 2.5)),
]


def test_the_same_seed_gives_the_same_calls():
    first, again, other = (random_calls(_METHODS, 30, seed) for seed in (7, 7, 8))
    assert [c.method for c in first] == [c.method for c in again]
    assert all(torch.equal(a, b) for x, y in zip(first, again) for a, b in zip(x.args, y.args) if torch.is_tensor(a))
    assert [c.method for c in first] != [c.method for c in other]


def test_inputs_stay_within_the_declared_shapes_and_ranges():
    calls = random_calls(_METHODS, 300, seed=1)
    assert {c.method for c in calls} == {"pair", "pick", "fixed"}
    rows = set()
    for call in calls:
        if call.method == "pair":
            x, y, ints = call.args
            assert x.shape[0] == y.shape[0] and x.shape[1] == 3  # one size per Dim per call
            rows.add(x.shape[0])
            assert ints.dtype == torch.int64 and 3 <= int(ints.min()) and int(ints.max()) <= 7
        elif call.method == "pick":
            index, flag = call.args
            assert 0 <= int(index) <= 9 and flag.dtype == torch.bool
        else:
            assert call.args[0].shape == (5,) and call.args[1] == 2.5
    assert rows == {1, 2, 3, 4}


def test_check_runs_random_calls_against_eager_and_records_them():
    exporter = cache_exporter()
    program = exporter.export()
    calls = exporter.random_calls(40, seed=3)
    result = exporter.check(program, calls, record_replay=True)
    assert len(result.sequence) == 40 and len(set(result.sequence)) == 3
    assert result.replay.count("\ncall ") == 40


def test_check_finds_a_program_that_differs_from_eager():
    program = cache_exporter(Cache(fill=0.5)).export()
    other = cache_exporter(Cache(fill=0.25))
    other.export()
    with pytest.raises(ExportError, match=r"buffer 'cache': after loading \(initial state\): state differs from eager"):
        other.check(program, other.random_calls(5, seed=0))


def test_check_needs_an_export_first():
    with pytest.raises(ExportError, match=r"call export\(\) first"):
        cache_exporter().check(None, [])


def test_input_ranges_are_validated():
    exporter = MultiMethodExporter(Cache().eval())
    with pytest.raises(ExportError, match=r"method 'get': input_ranges: 3 is not an argument index"):
        exporter.method("get", (torch.zeros(4, 8),), input_ranges={3: (0, 1)})


if __name__ == "__main__":
    testing.main(__file__)
