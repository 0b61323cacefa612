"""Methods captured in forked processes give the same .pte as a serial export; a child
that fails costs only time; small modules stay serial."""

import logging

import pytest
import torch

from pteforge import load
from pteforge.capture import parallel_capture
from pteforge.capture.capture import capture
from pteforge.program.testing_models import cache_exporter
from pteforge.support import testing
from pteforge.support.progress import StageTimer


def _export(monkeypatch, jobs: int) -> bytes:
    monkeypatch.setenv("PTEFORGE_EXPORT_JOBS", str(jobs))
    return cache_exporter().export(backend="xnnpack").data


@pytest.fixture
def every_module_worth_a_process(monkeypatch):
    monkeypatch.setattr(parallel_capture, "MIN_PARAMETERS", 0)


def test_parallel_capture_is_byte_identical_to_serial(monkeypatch, caplog, every_module_worth_a_process):
    serial = _export(monkeypatch, 1)
    with caplog.at_level(logging.INFO, logger="pteforge"):
        parallel = _export(monkeypatch, 3)
    # set here (its rows are dynamic), get and accumulate (the weight, by its name) in children.
    assert "capturing in 3 processes: set; get; accumulate" in caplog.text
    assert "captured accumulate in a child process" in caplog.text
    assert "failed" not in caplog.text
    assert parallel == serial
    program = load(parallel)
    program.run("set", torch.full((4, 8), 2.0))
    (total,) = program.run("accumulate", torch.ones(4, 8))
    assert torch.allclose(total, (torch.full((4, 8), 2.0) + torch.ones(4, 8) @ cache_exporter().module.weight)
                          .sum(dim=0, keepdim=True))


def test_the_module_tensors_come_back_as_the_modules_own(monkeypatch, every_module_worth_a_process):
    exporter = cache_exporter()
    module = exporter.module

    def capture_one(name):
        return capture(module, name, exporter._function(name), exporter._methods[name].example_args)

    captured = parallel_capture.capture_methods(module, ["get", "accumulate"], capture_one, 2, StageTimer())
    program = captured["accumulate"].program  # captured in the child
    assert program.state_dict["weight"] is module.weight
    assert captured["accumulate"].writes == {"cache"}


def test_a_failing_child_costs_only_time(monkeypatch, caplog, every_module_worth_a_process):
    serial = _export(monkeypatch, 1)

    def broken(module, captured):
        raise RuntimeError("cannot serialize this program")

    # Forked children inherit the patch; this process never packs.
    monkeypatch.setattr(parallel_capture, "_pack", broken)
    with caplog.at_level(logging.INFO, logger="pteforge"):
        parallel = _export(monkeypatch, 2)
    assert "the child process for capturing get, accumulate failed" in caplog.text
    assert parallel == serial


def test_small_modules_stay_serial(monkeypatch, caplog):
    with caplog.at_level(logging.INFO, logger="pteforge"):
        _export(monkeypatch, 2)
    assert "capturing in" not in caplog.text


if __name__ == "__main__":
    testing.main(__file__)
