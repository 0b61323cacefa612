"""State semantics, generated methods, constants and the report of an export."""

import torch

from pteforge import Call, ExportError, MultiMethodExporter, load
from pteforge.program.testing_models import Cache, Counters, Table, cache_exporter
from pteforge.support import testing

import pytest


@pytest.fixture(scope="module")
def cache_program():
    exporter = cache_exporter()
    exporter.constant("max_rows", 4).constant("label", "cache").constant("blob", b"\x00\x01\xff")
    return exporter.export()


def test_state_written_by_one_method_is_read_by_another(cache_program):
    program = load(cache_program.data)
    program.run("set", torch.full((3, 8), 2.0))
    (got,) = program.run("get", torch.zeros(4, 8))
    want = torch.full((4, 8), 0.5)
    want[:3] = 2.0
    assert torch.equal(got, want)
    # accumulate reads and writes the same cache; get sees its update.
    eager = Cache().eval()
    with torch.no_grad():
        eager.set(torch.full((3, 8), 2.0))
        eager.accumulate(torch.ones(4, 8))
    program.run("accumulate", torch.ones(4, 8))
    (got,) = program.run("get", torch.zeros(4, 8))
    torch.testing.assert_close(got, eager.cache)


def test_state_starts_at_module_values_and_reset_restores_them(cache_program):
    program = load(cache_program.data)
    assert torch.equal(program.state()["cache"], torch.full((4, 8), 0.5))
    program.run("set", torch.ones(4, 8))
    program.run("set", torch.ones(1, 8))
    assert program.state()["calls"].item() == 2
    program.reset_state()
    state = program.state()
    assert torch.equal(state["cache"], torch.full((4, 8), 0.5))
    assert state["calls"].item() == 0


def test_reset_restores_non_uniform_initial_values():
    program = load(MultiMethodExporter(Table().eval()).shared_state("table")
                   .method("scale", (torch.tensor(3.0),)).export().data)
    program.run("scale", torch.tensor(0.0))
    assert program.state()["table"].abs().sum() == 0
    program.reset_state()
    assert torch.equal(program.state()["table"], torch.arange(12.0).reshape(3, 4))


def test_private_state_is_not_clobbered_by_other_methods():
    exporter = MultiMethodExporter(Counters().eval())
    exporter.method("tick_a", (torch.ones(16),)).method("tick_b", (torch.ones(16),))
    exporter.method("scratch", (torch.ones(16),))
    result = exporter.export()
    assert {e["name"]: e["shared"] for e in result.report["state"]} == {"a": False, "b": False}
    program = load(result.data)
    for _ in range(3):
        program.run("tick_a", torch.ones(16))
        program.run("scratch", torch.full((16,), 5.0))
        program.run("tick_b", torch.full((16,), 2.0))
    (a,) = program.run("tick_a", torch.zeros(16))
    (b,) = program.run("tick_b", torch.zeros(16))
    assert torch.equal(a, torch.full((16,), 3.0))
    assert torch.equal(b, torch.full((16,), 94.0))


def test_submodule_name_shares_all_its_buffers():
    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Cache()

        def set(self, x):
            return self.inner.set(x)

        def get(self, x):
            return self.inner.get(x) + self.inner.calls

    exporter = MultiMethodExporter(Outer().eval()).shared_state("inner")
    exporter.method("set", (torch.ones(4, 8),)).method("get", (torch.zeros(4, 8),))
    result = exporter.export()
    assert {e["name"] for e in result.report["state"] if e["shared"]} == {"inner.cache", "inner.calls"}


def test_constants_are_methods_of_the_program(cache_program):
    program = load(cache_program.data)
    assert program.run("max_rows") == [4]
    assert program.run("label") == ["cache"]
    (blob,) = program.run("blob")
    assert blob.dtype == torch.uint8 and blob.tolist() == [0, 1, 255]


def test_report_describes_methods_state_memory_and_conformance(cache_program):
    report = cache_program.report
    assert report["backend"] == "portable"
    assert list(report["methods"]) == ["set", "get", "accumulate"]
    (rows_input,) = report["methods"]["set"]["inputs"]
    assert rows_input["dtype"] == "float32"
    rows, width = rows_input["shape"]
    assert (rows["min"], rows["max"], width) == (1, 4, 8)
    assert report["methods"]["get"]["outputs"] == [{"dtype": "float32", "shape": [4, 8], "name": ""}]
    cache, calls = report["state"]
    assert (cache["name"], cache["shared"], cache["bytes"], cache["memory_id"]) == ("cache", True, 128, 2)
    assert cache["methods"] == ["set", "get", "accumulate"]
    assert (calls["name"], calls["shared"], calls["methods"]) == ("calls", False, ["set"])
    assert cache["offset"] != calls["offset"]
    memory = report["memory"]
    work = [m["planned_work_bytes"] for m in report["methods"].values()] + [
        m["planned_work_bytes"] for m in report["generated_methods"].values()]
    assert memory["work_arena_bytes_shared"] == max(work)
    assert memory["work_arena_bytes_separate"] == sum(work)
    assert memory["total_planned_bytes_shared"] == max(work) + memory["state_arena_bytes"]
    assert memory["state_arena_bytes"] >= 128 + 8
    assert report["sizes"]["pte_bytes"] == len(cache_program.data)
    # The weight, counted once (the in-memory program also still holds what
    # serialization moved into the segments).
    assert 8 * 8 * 4 <= report["sizes"]["constant_data_bytes"] < 2 * 8 * 8 * 4
    assert report["conformance"]["passed"] and report["conformance"]["calls"] == [
        "set", "get", "accumulate", "set", "get", "accumulate"]
    assert set(report["constants"]) == {"max_rows", "label", "blob"}
    assert "planned memory" in cache_program.summary()


def test_a_user_call_sequence_is_what_conformance_runs():
    exporter = cache_exporter().call_sequence([
        ("set", (torch.ones(1, 8),)), Call("get", (torch.ones(4, 8),)),
    ])
    assert exporter.export().report["conformance"]["calls"] == ["set", "get"]


def test_export_leaves_the_users_module_unchanged():
    module = Cache().eval()
    before = {k: v.clone() for k, v in module.state_dict().items()}
    cache_exporter(module).export()
    assert "forward" not in module.__dict__
    for key, value in module.state_dict().items():
        assert torch.equal(value, before[key]), key


def test_xnnpack_delegates_and_keeps_shared_state():
    result = cache_exporter().export(backend="xnnpack")
    assert result.report["backend"] == "xnnpack"
    assert result.report["methods"]["accumulate"]["delegates"] >= 1
    program = load(result.data)
    program.run("set", torch.full((4, 8), 3.0))
    (got,) = program.run("get", torch.zeros(4, 8))
    assert torch.equal(got, torch.full((4, 8), 3.0))


class OwnGetState(torch.nn.Module):
    """ExecuTorch's test model ModuleSharedState names its methods get_state and set_state."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(3))

    def get_state(self):
        return self.state.clone()

    def set_state(self, value):
        self.state.copy_(value)
        return self.state + 1


def test_methods_named_like_the_generated_ones_keep_their_names():
    exporter = MultiMethodExporter(OwnGetState().eval()).shared_state("state")
    exporter.method("get_state", ()).method("set_state", (torch.ones(3),))
    result = exporter.export()
    program = load(result.data)
    assert program.metadata.get_state == "pteforge_get_state"
    program.run("set_state", torch.full((3,), 2.0))
    (got,) = program.run("get_state")
    assert torch.equal(got, torch.full((3,), 2.0))
    assert torch.equal(program.state()["state"], torch.full((3,), 2.0))


@pytest.mark.parametrize("build, message", [
    (lambda e: e.method("nope", (torch.ones(1),)), "has no method 'nope'. Its own methods are: accumulate, get, set"),
    (lambda e: e.method("get", torch.ones(4, 8)), "example_args must be a tuple"),
    (lambda e: e.method("pteforge_metadata", (torch.ones(1),)), "reserved"),
    (lambda e: e.method("get", (torch.ones(4, 8),)).constant("get", 1), "already registered"),
    (lambda e: e.constant("x", object()), "unsupported type object"),
    (lambda e: e.method("get", (torch.ones(4, 8),)).export(backend="gpu"), "unknown backend 'gpu'"),
    (lambda e: e.method("get", (torch.ones(4, 8),)).call_sequence([("missing", ())]).export(),
     "calls 'missing', which is not a registered method"),
])
def test_bad_use_is_explained(build, message):
    with pytest.raises(ExportError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build(MultiMethodExporter(Cache().eval()))


def test_training_mode_and_no_methods_are_refused():
    with pytest.raises(ExportError, match="training mode"):
        MultiMethodExporter(Cache()).method("get", (torch.zeros(4, 8),)).export()
    with pytest.raises(ExportError, match="no methods registered"):
        MultiMethodExporter(Cache().eval()).export()


if __name__ == "__main__":
    testing.main(__file__)
