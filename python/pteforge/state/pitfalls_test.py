"""The known ways state sharing goes wrong (FINDINGS.md), each exported correctly or
refused with a message naming the method and the buffer."""

import logging

import torch
from torch.export import Dim

from pteforge import ExportError, MultiMethodExporter, load
from pteforge.program.testing_models import (
    Aliased,
    Branchy,
    Cache,
    InPlaceThenUse,
    MutatesInput,
    ReadAsWeight,
    SliceWrite,
    TwoCalls,
)
from pteforge.support import testing

import pytest


def test_submodule_called_twice_with_different_flags_gives_the_eager_result():
    exporter = MultiMethodExporter(TwoCalls().eval()).shared_state("scaler")
    exporter.method("run", (torch.arange(3.0),)).method("count", (torch.zeros(1),))
    program = load(exporter.export().data)  # conformance compared it with eager already
    (out,) = program.run("run", torch.tensor([1.0, 2.0, 3.0]))
    assert torch.equal(out, torch.tensor([202.0, 403.0, 604.0]))
    (count,) = program.run("count", torch.zeros(1))
    assert count.item() == 11.0  # one call with double=True (+1), one without (+10)


def test_in_place_updates_then_out_of_place_use():
    exporter = MultiMethodExporter(InPlaceThenUse().eval()).shared_state("state")
    exporter.method("step", (torch.ones(4),)).method("peek", (torch.zeros(4),))
    program = load(exporter.export().data)
    (out,) = program.run("step", torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert torch.equal(out, torch.tensor([27.0, 36.0, 45.0, 54.0]))
    (state,) = program.run("peek", torch.zeros(4))
    assert torch.equal(state, torch.tensor([3.0, 4.0, 5.0, 6.0]))


def test_a_method_mutating_its_input_updates_the_callers_tensor():
    exporter = MultiMethodExporter(MutatesInput().eval()).method("bump", (torch.ones(2),))
    result = exporter.export()
    assert result.report["methods"]["bump"]["writes"] == [0]
    assert len(result.report["methods"]["bump"]["outputs"]) == 1
    x = torch.tensor([1.0, 5.0])
    (out,) = load(result.data).run("bump", x)
    assert torch.equal(x, torch.tensor([2.0, 6.0]))  # as eager PyTorch leaves it
    assert torch.equal(out, torch.tensor([4.0, 12.0]))


class _CountsInAnAttribute(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.scale = torch.nn.Linear(3, 3)

    def step(self, x):
        self.calls += 1
        return self.scale(x) * self.calls


class _TrainsAParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(3))

    def step(self, x):
        with torch.no_grad():
            self.bias.add_(x)
        return self.bias * 2


@pytest.mark.parametrize("module, message", [
    (_CountsInAnAttribute, r"^method 'step': changes the Python attribute `self.calls` \(0 -> 1\)\. .*"
                           r"self.register_buffer\('calls', torch.tensor\(0\)\)"),
    (_TrainsAParameter, r"^method 'step': changes the parameter 'bias' in place\. .*register_buffer"),
])
@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_state_outside_buffers_is_refused_at_capture_naming_it(module, message, backend, monkeypatch):
    from pteforge.lower import lowering

    def never(*args, **kwargs):
        raise AssertionError("refused only after lowering began")

    monkeypatch.setattr(lowering, "to_edge_and_lower", never)
    exporter = MultiMethodExporter(module().eval()).method("step", (torch.ones(3),))
    with pytest.raises(ExportError, match=message):
        exporter.export(backend=backend)


class _Accumulates(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def add(self, rows):
        self.total.add_(rows.sum(0))
        return self.total.clone()


@pytest.mark.parametrize("dim", [Dim("rows"), Dim.DYNAMIC], ids=["Dim without max", "Dim.DYNAMIC"])
def test_a_dynamic_size_without_upper_bound_is_refused_naming_it(dim):
    exporter = MultiMethodExporter(_Accumulates().eval()).shared_state("total")
    exporter.method("add", (torch.ones(3, 4),), dynamic_shapes=({0: dim},))
    with pytest.raises(ExportError, match=r"^method 'add': dimension 0 of argument 'rows' is dynamic with no upper "
                                          r"bound.*Dim\(\"n\", max=N\)"):
        exporter.export()
    exporter = MultiMethodExporter(_Accumulates().eval()).shared_state("total")
    exporter.method("add", (torch.ones(3, 4),), dynamic_shapes=({0: Dim("rows", max=8)},))
    exporter.export()  # with a maximum it exports


class _SetByName(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("offset", torch.zeros(4))

    def set_offset(self, offset):  # the argument is named like the buffer
        self.offset.copy_(offset)
        return self.offset.sum().reshape(1)


def test_an_argument_named_like_its_buffer_is_refused():
    exporter = MultiMethodExporter(_SetByName().eval()).shared_state("offset")
    exporter.method("set_offset", (torch.ones(4),))
    with pytest.raises(ExportError, match=r"method 'set_offset': argument 'offset' has the name of the buffer 'offset'"):
        exporter.export()


def test_data_dependent_control_flow_is_refused_with_a_way_out():
    exporter = MultiMethodExporter(Branchy().eval()).method("choose", (torch.ones(3),))
    with pytest.raises(ExportError) as error:
        exporter.export()
    message = str(error.value)
    assert message.startswith("method 'choose': data-dependent control flow at ")
    assert "testing_models.py" in message
    assert "Split the branches into separate methods" in message


def test_dynamic_slice_write_up_to_the_full_size_is_exact_at_every_size():
    exporter = MultiMethodExporter(SliceWrite().eval()).shared_state("buffer")
    exporter.method("write_slice", (torch.ones(2, 3),), dynamic_shapes=({1: Dim("n", min=1, max=8)},))
    exporter.method("read", (torch.zeros(2, 8),))
    exporter.call_sequence([call for n in range(1, 9) for call in (
        ("write_slice", (torch.full((2, n), float(n)),)),
        ("read", (torch.zeros(2, 8),)),
    )])
    program = load(exporter.export().data)  # conformance compared every size with eager
    program.run("write_slice", torch.full((2, 8), 4.0))  # the full width
    program.run("write_slice", torch.full((2, 3), 1.0))
    (got,) = program.run("read", torch.zeros(2, 8))
    assert torch.equal(got, torch.tensor([[1.0] * 3 + [4.0] * 5] * 2))


def test_index_copy_writes_up_to_the_full_size():
    exporter = MultiMethodExporter(SliceWrite().eval()).shared_state("buffer")
    exporter.method("write_index", (torch.ones(2, 3),), dynamic_shapes=({1: Dim("n", min=1, max=8)},))
    exporter.method("read", (torch.zeros(2, 8),))
    exporter.call_sequence([
        ("write_index", (torch.full((2, 8), 4.0),)),  # the full width
        ("read", (torch.zeros(2, 8),)),
        ("write_index", (torch.full((2, 2), 1.0),)),
        ("read", (torch.zeros(2, 8),)),
    ])
    program = load(exporter.export().data)
    program.run("write_index", torch.full((2, 8), 4.0))
    (got,) = program.run("read", torch.zeros(2, 8))
    assert torch.equal(got, torch.full((2, 8), 4.0))


def test_example_size_equal_to_the_dim_bound_stays_dynamic():
    exporter = MultiMethodExporter(Cache().eval()).shared_state("cache")
    exporter.method("set", (torch.ones(4, 8),), dynamic_shapes=({0: Dim("rows", min=1, max=4)},))
    exporter.method("get", (torch.zeros(4, 8),))
    exporter.call_sequence([("set", (torch.full((2, 8), 3.0),)), ("get", (torch.zeros(4, 8),))])
    result = exporter.export()
    assert result.report["methods"]["set"]["inputs"][0]["shape"][0]["max"] == 4


def test_example_size_of_one_is_refused():
    exporter = MultiMethodExporter(Cache().eval()).shared_state("cache")
    exporter.method("set", (torch.ones(1, 8),), dynamic_shapes=({0: Dim("rows", min=1, max=4)},))
    with pytest.raises(ExportError, match=r"method 'set': dynamic dimension 'rows' was specialized to the constant 1\. An example size of 1"):
        exporter.export()


def test_typo_in_a_shared_state_name_lists_the_buffers():
    exporter = MultiMethodExporter(Cache().eval()).shared_state("cahce")
    exporter.method("get", (torch.zeros(4, 8),))
    with pytest.raises(ExportError, match=r"buffer 'cahce': .*Did you mean 'cache'\? Its buffers are: cache, calls\."):
        exporter.export()


def test_a_parameter_is_not_state():
    exporter = MultiMethodExporter(Cache().eval()).shared_state("weight").method("get", (torch.zeros(4, 8),))
    with pytest.raises(ExportError, match="names a parameter"):
        exporter.export()


def test_same_buffer_under_two_names_is_refused():
    exporter = MultiMethodExporter(Aliased().eval()).shared_state("inner.state")
    exporter.method("write", (torch.ones(3),)).method("read", (torch.zeros(3),))
    with pytest.raises(ExportError, match=r"reachable as 'inner.state', 'alias.state'"):
        exporter.export()


def test_undeclared_state_used_by_several_methods_is_refused():
    exporter = MultiMethodExporter(Cache().eval())  # `cache` not declared shared
    exporter.method("set", (torch.ones(4, 8),)).method("get", (torch.zeros(4, 8),))
    with pytest.raises(ExportError, match=r"buffer 'cache': is mutated by 'set' and used by 'set', 'get', but is not declared shared state"):
        exporter.export()


def test_read_only_method_under_xnnpack_sees_the_live_state(caplog):
    exporter = MultiMethodExporter(ReadAsWeight().eval()).shared_state("weight")
    exporter.method("set_weight", (torch.eye(8) * 2,)).method("project", (torch.ones(2, 8),))
    with caplog.at_level(logging.WARNING, logger="pteforge"):
        result = exporter.export(backend="xnnpack")
    assert "would have packed state buffer 'weight' as constant data" in caplog.text
    program = load(result.data)
    w = torch.arange(64.0).reshape(8, 8)
    program.run("set_weight", w)
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
    (got,) = program.run("project", x)
    # A stale (packed) weight would give x itself (the initial identity), far off.
    torch.testing.assert_close(got, x @ w.t(), rtol=1e-5, atol=1e-3)


def test_a_delegate_owning_state_is_detected():
    """Without pteforge's guard, XNNPACK packs the state; verification (b) says so."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from pteforge.capture.capture import capture
    from pteforge.verify.delegated_state import check_no_delegate_owns_state

    module = ReadAsWeight().eval()
    method = capture(module, "project", ReadAsWeight.project, (torch.ones(2, 8),))
    edge = to_edge_transform_and_lower({"project": method.program}, partitioner=[XnnpackPartitioner()])
    with pytest.raises(ExportError, match=r"method 'project', buffer 'weight': the .* delegate took this state buffer as constant data"):
        check_no_delegate_owns_state(edge, ["project"], ["weight"])


class _ResetFromBuffer(torch.nn.Module):
    """Recurrent state reset from a stored initial value no method mutates."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("h0", torch.arange(4.0) + 1)
        self.register_buffer("h", torch.zeros(4))

    def init(self, x):
        self.h.copy_(self.h0)
        return x * 2

    def step(self, x):
        self.h.copy_(torch.tanh(self.lin(x) + self.h))
        return self.h.clone()


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_state_reset_from_a_never_mutated_buffer(backend):
    exporter = MultiMethodExporter(_ResetFromBuffer().eval()).shared_state("h")
    exporter.method("init", (torch.ones(4),)).method("step", (torch.ones(4),))
    exporter.call_sequence([("step", (torch.ones(4),)), ("init", (torch.ones(4),)), ("step", (torch.ones(4),))])
    program = load(exporter.export(backend=backend).data)  # conformance passed
    program.run("step", torch.ones(4))
    program.run("init", torch.ones(4))
    # The bug this guards against left h off by exactly h0 (h0 + h0 instead of h0).
    assert torch.equal(program.state()["h"], torch.arange(4.0) + 1)


class _AccumulateAndReturn(torch.nn.Module):
    """A delegated result both written into the state and returned."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("acc", torch.zeros(4))

    def step(self, x):
        self.acc.add_(self.lin(x))
        return self.acc.clone()


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_a_result_written_to_state_and_returned(backend):
    exporter = MultiMethodExporter(_AccumulateAndReturn().eval()).shared_state("acc")
    exporter.method("step", (torch.ones(4),))
    result = exporter.export(backend=backend)  # conformance passed
    if backend == "xnnpack":
        assert result.report["methods"]["step"]["delegates"] >= 1


if __name__ == "__main__":
    testing.main(__file__)
