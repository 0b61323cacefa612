"""Tuples, lists and dicts of tensors as method arguments and results: exported on the
portable and XNNPACK backends, run flat by the program, given back in eager PyTorch's
structure by pteforge.load(...).call, and checked leaf by leaf by conformance, random
calls included."""

import copy

import torch
import torch.utils._pytree as pytree
from torch.export import Dim

from pteforge import Call, ExportError, MultiMethodExporter, Tolerance, load
from pteforge.support import testing
from pteforge.verify.conformance import check_conformance

import pytest


class Containers(torch.nn.Module):
    """A shared buffer read and written through container arguments."""

    def __init__(self):
        super().__init__()
        self.register_buffer("h", torch.zeros(3))

    def f(self, xs):  # a list in, a tensor out
        self.h.add_((xs[0] + xs[1]).sum(0))
        return self.h.clone()

    def g(self, d):  # a dict in, a dict out
        self.h.mul_(d["a"])
        return {"h": self.h.clone(), "b": d["b"] * 2}

    def w(self, scale, pair):  # writes into an element of a tuple argument (flat input 2)
        pair[1].add_(self.h * scale)
        return pair[0] * 2, [pair[0] + self.h]


ROWS = Dim("rows", min=1, max=4)
WIDTH = Dim("width", min=1, max=5)


def make_exporter(module=None):
    exporter = MultiMethodExporter((module or Containers()).eval(), name="containers")
    exporter.shared_state("h")
    exporter.method("f", ([torch.ones(2, 3), torch.ones(2, 3)],), dynamic_shapes=([{0: ROWS}, {0: ROWS}],))
    exporter.method("g", ({"a": torch.ones(3), "b": torch.ones(2)},),
                    dynamic_shapes=({"a": None, "b": {0: WIDTH}},), input_ranges={0: (0.5, 1.5)})
    exporter.method("w", (torch.ones(3), (torch.ones(3), torch.ones(3))))
    return exporter


@pytest.fixture(scope="module", params=["portable", "xnnpack"])
def exported(request):
    exporter = make_exporter()
    return exporter, exporter.export(backend=request.param)


def _calls():
    return [
        ("f", ([torch.full((3, 3), 0.5), torch.arange(9.0).reshape(3, 3)],)),
        ("g", ({"b": torch.arange(4.0), "a": torch.tensor([1.0, 2.0, -1.0])},)),  # keys in another order
        ("w", (torch.tensor([1.0, 0.5, 2.0]), (torch.ones(3), torch.arange(3.0)))),
        ("g", ({"a": torch.full((3,), 0.5), "b": torch.ones(1)},)),
        ("w", (torch.ones(3), (torch.arange(3.0), torch.zeros(3)))),
    ]


def _assert_same(want, got):
    assert pytree.tree_structure(got) == pytree.tree_structure(want), (want, got)
    for w, g in zip(pytree.tree_leaves(want), pytree.tree_leaves(got)):
        torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-4)


def test_call_returns_eager_structure_and_writes_the_element(exported):
    _, result = exported
    program = load(result.data)
    eager = Containers().eval()
    for method, args in _calls():
        eager_args = pytree.tree_map(lambda t: t.clone(), args)
        with torch.no_grad():
            want = getattr(eager, method)(*eager_args)
        got = program.call(method, *args)
        _assert_same(want, got)
        _assert_same(eager_args, args)  # w wrote pair[1] in the caller's tuple, as eager did
    assert isinstance(got, tuple) and isinstance(got[1], list)
    torch.testing.assert_close(program.state()["h"], eager.h, atol=1e-4, rtol=1e-4)


def test_run_takes_structured_arguments_and_returns_flat_outputs(exported):
    _, result = exported
    program = load(result.data)
    pair = (torch.ones(3), torch.ones(3))
    outputs = program.run("w", torch.ones(3), pair)
    assert isinstance(outputs, list) and len(outputs) == 2
    assert torch.equal(outputs[0], torch.full((3,), 2.0)) and torch.equal(outputs[1], torch.ones(3))
    assert torch.equal(pair[1], torch.ones(3))  # h is 0 at first
    h, b = program.run("g", {"a": torch.ones(3), "b": torch.ones(2)})
    assert torch.equal(b, torch.full((2,), 2.0))
    assert program.written_args("w") == (2,)
    assert program.input_names("w") == ["scale", "pair[0]", "pair[1]"]
    assert program.output_names("w") == ["[0]", "[1][0]"]
    assert program.output_names("g") == ["['h']", "['b']"] and program.output_names("f") == [""]


def test_arguments_of_another_structure_are_refused(exported):
    _, result = exported
    program = load(result.data)
    with pytest.raises(TypeError, match=r"method 'f' takes arguments structured as \(\[\*, \*\],\)"):
        program.run("f", (torch.ones(2, 3), torch.ones(2, 3)))
    with pytest.raises(TypeError, match=r"method 'g' takes arguments structured as \(\{'a': \*, 'b': \*\},\)"):
        program.run("g", {"a": torch.ones(3)})


def test_report_and_metadata_name_each_leaf(exported):
    _, result = exported
    methods = result.report["methods"]
    assert [value["name"] for value in methods["f"]["inputs"]] == ["xs[0]", "xs[1]"]
    assert [value["name"] for value in methods["g"]["inputs"]] == ["d['a']", "d['b']"]
    assert [value["name"] for value in methods["g"]["outputs"]] == ["['h']", "['b']"]
    assert [value["name"] for value in methods["w"]["inputs"]] == ["scale", "pair[0]", "pair[1]"]
    assert methods["w"]["writes"] == [2] and len(methods["w"]["outputs"]) == 2
    assert methods["f"]["inputs"][0]["shape"][0]["max"] == 4
    (text,) = load(result.data).run("pteforge_metadata")
    assert "name g output 0 ['h']\n" in text and "name w input 2 pair[1]\nname w output 0 [0]\n" in text


def test_random_calls_draw_containers_leaf_by_leaf(exported):
    exporter, result = exported
    calls = exporter.random_calls(12, seed=3)
    f_rows = {c.args[0][0].shape[0] for c in calls if c.method == "f"}
    for call in calls:
        if call.method == "f":
            assert isinstance(call.args[0], list) and call.args[0][0].shape == call.args[0][1].shape
        if call.method == "g":
            assert set(call.args[0]) == {"a", "b"} and call.args[0]["a"].shape == (3,)
            assert 0.5 <= float(call.args[0]["a"].min()) and float(call.args[0]["a"].max()) <= 1.5
            assert 0.5 <= float(call.args[0]["b"].min()) and float(call.args[0]["b"].max()) <= 1.5
        if call.method == "w":
            assert isinstance(call.args[1], tuple) and len(call.args[1]) == 2
    assert len(f_rows) > 1 or len({c.args[0]["b"].shape[0] for c in calls if c.method == "g"}) > 1
    checked = exporter.check(result, exporter.random_calls(6, seed=1), record_replay=True)
    assert len(checked.sequence) == 6
    assert checked.replay is not None and "call w(" in checked.replay
    checked = exporter.check(result, _calls())
    assert checked.values_compared > 0


class _WritesAnotherElement(Containers):
    def w(self, scale, pair):
        result = super().w(scale, pair)
        pair[0].add_(1.0)  # a write the traced method does not make
        return result


class _WritesOtherValues(Containers):
    def w(self, scale, pair):
        pair[1].add_(self.h * scale + 1.0)
        return pair[0] * 2, [pair[0] + self.h]


class _ReturnsAList(Containers):
    def g(self, d):
        self.h.mul_(d["a"])
        return [self.h.clone(), d["b"] * 2]


@pytest.mark.parametrize("module, message", [
    (_WritesAnotherElement, r"call 1 \(w\): eager PyTorch changes argument 1 \(pair\[0\]\) in place"),
    (_WritesOtherValues, r"call 1 \(w\): argument 2 \(pair\[1\]\) \(written by the method\) differs"),
    (_ReturnsAList, r"call 2 \(g\): eager returns a list structured differently"),
])
def test_conformance_compares_each_leaf(exported, module, message):
    exporter, result = exported
    calls = [Call("w", (torch.ones(3), (torch.ones(3), torch.ones(3)))),
             Call("g", ({"a": torch.ones(3), "b": torch.ones(2)},))]
    eager = module().eval()
    with pytest.raises(ExportError, match=message):
        check_conformance(eager, result.data, exporter._state, calls, Tolerance(atol=1e-4, rtol=1e-4))
    check_conformance(Containers().eval(), result.data, exporter._state, calls, Tolerance(atol=1e-4, rtol=1e-4))


if __name__ == "__main__":
    testing.main(__file__)
