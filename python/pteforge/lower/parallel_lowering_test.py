"""Methods lowered in forked processes give the same .pte as a serial export; a child
that fails costs only time; the split balances graph sizes."""

import logging

import pytest
import torch

from pteforge import ExportError, load
from pteforge.lower import parallel_lowering
from pteforge.lower.parallel_lowering import split_by_size
from pteforge.program.testing_models import cache_exporter
from pteforge.support import testing
from pteforge.support.forked import export_jobs


def test_split_balances_sizes_and_keeps_each_groups_order():
    sizes = {"encode": 394, "decode_step": 174, "reorder_cache": 11, "reset_state": 15, "get_state": 8}
    assert split_by_size(sizes, 2, min_size=150) == [
        ["encode"], ["decode_step", "reorder_cache", "reset_state", "get_state"]]
    assert split_by_size({"a": 5, "b": 9, "c": 4}, 2, min_size=0) == [["b"], ["a", "c"]]
    assert split_by_size({"a": 5, "b": 9, "c": 4}, 3, min_size=0) == [["b"], ["a"], ["c"]]


def test_split_keeps_small_groups_in_this_process():
    assert split_by_size({"a": 100, "b": 20}, 2, min_size=150) == [["a", "b"]]
    assert split_by_size({"a": 100, "b": 20}, 1, min_size=0) == [["a", "b"]]
    assert split_by_size({"a": 100}, 4, min_size=0) == [["a"]]


def test_jobs_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("PTEFORGE_EXPORT_JOBS", "3")
    assert export_jobs() == 3
    monkeypatch.delenv("PTEFORGE_EXPORT_JOBS")
    assert export_jobs() >= 1
    for bad in ("two", "0"):
        monkeypatch.setenv("PTEFORGE_EXPORT_JOBS", bad)
        with pytest.raises(ExportError, match="PTEFORGE_EXPORT_JOBS"):
            export_jobs()


def _export(monkeypatch, jobs: int) -> bytes:
    monkeypatch.setenv("PTEFORGE_EXPORT_JOBS", str(jobs))
    return cache_exporter().export(backend="xnnpack").data


@pytest.fixture
def every_method_worth_a_process(monkeypatch):
    monkeypatch.setattr(parallel_lowering, "MIN_NODES_PER_PROCESS", 0)


def test_parallel_export_is_byte_identical_to_serial(monkeypatch, caplog, every_method_worth_a_process):
    serial = _export(monkeypatch, 1)
    with caplog.at_level(logging.INFO, logger="pteforge"):
        parallel = _export(monkeypatch, 3)
    assert "lowering in 3 processes" in caplog.text
    assert "failed" not in caplog.text
    assert parallel == serial
    # And it runs: the delegated accumulate reads what set wrote.
    program = load(parallel)
    program.run("set", torch.full((4, 8), 2.0))
    (total,) = program.run("accumulate", torch.ones(4, 8))
    assert total.shape == (1, 8)


def test_a_failing_child_costs_only_time(monkeypatch, caplog, every_method_worth_a_process):
    serial = _export(monkeypatch, 1)

    def broken(program):
        raise RuntimeError("cannot serialize this program")

    # Forked children inherit the patch; this process never serializes.
    monkeypatch.setattr(parallel_lowering, "_serialize", broken)
    with caplog.at_level(logging.INFO, logger="pteforge"):
        parallel = _export(monkeypatch, 2)
    assert "failed" in caplog.text
    assert parallel == serial


def test_delegate_weights_travel_beside_the_serialized_program():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    layer = torch.nn.Linear(256, 256).eval()  # 256 KB of weights, delegated
    program = torch.export.export(layer, (torch.ones(2, 256),))
    lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]).exported_program()
    (delegate,) = parallel_lowering._lowered_modules(lowered)
    buffers = list(delegate.named_data_store_output.buffers)
    tensors = dict(delegate.original_module.state_dict)
    assert sum(len(buffer) for buffer in buffers) >= 256 * 256 * 4

    known = parallel_lowering.known_tensors({"forward": program})
    artifact, payloads, top_level = parallel_lowering._serialize(lowered, known)
    # The weights are not in ExecuTorch's serialization (base64 in JSON: 25 s each way
    # at 135M parameters), only in the payloads, as they were; the layer's own tensors,
    # which this process still has, travel by name.
    assert sum(len(part) for part in artifact) < 64 * 1024
    by_name, raw = payloads[0][1]
    assert by_name and not raw
    back = parallel_lowering._deserialize((artifact, payloads, top_level), known)
    (delegate_back,) = parallel_lowering._lowered_modules(back)
    assert delegate_back.named_data_store_output.buffers == buffers
    assert delegate_back.named_data_store_output.pte_data == delegate.named_data_store_output.pte_data
    assert delegate_back.processed_bytes == delegate.processed_bytes
    for key, value in tensors.items():  # the very tensors the program held before lowering
        assert delegate_back.original_module.state_dict[key] is program.state_dict[key]
        assert torch.equal(delegate_back.original_module.state_dict[key], value)


if __name__ == "__main__":
    testing.main(__file__)
