"""Internal failures come out as ExportErrors naming the method, with the cause kept."""

import torch

from pteforge import ExportError, MultiMethodExporter
from pteforge.lower import lowering
from pteforge.program.testing_models import cache_exporter
from pteforge.run.runtime import LoadedProgram
from pteforge.support import failures, testing

import pytest


def _lowering_failing_when(monkeypatch, fails):
    real = lowering.to_edge_transform_and_lower

    def lower(programs, **kwargs):
        if fails(programs):
            raise RuntimeError("an internal assertion deep inside ExecuTorch")
        return real(programs, **kwargs)

    monkeypatch.setattr(lowering, "to_edge_transform_and_lower", lower)


def test_a_lowering_failure_names_the_method_that_fails_alone(monkeypatch):
    _lowering_failing_when(monkeypatch, lambda programs: "get" in programs)
    with pytest.raises(ExportError) as raised:
        cache_exporter().export()
    assert str(raised.value).startswith(
        "method 'get': lowering to ExecuTorch (portable) failed "
        "(RuntimeError: an internal assertion deep inside ExecuTorch). pteforge does not know this failure.")
    assert raised.value.method == "get"
    assert isinstance(raised.value.__cause__, RuntimeError)


def test_a_failure_of_the_methods_together_says_so(monkeypatch):
    _lowering_failing_when(monkeypatch, lambda programs: len(programs) > 1)
    with pytest.raises(ExportError, match=r"^lowering to ExecuTorch \(portable\) failed .*it fails only with all of them"):
        cache_exporter().export()


def test_a_runtime_failure_in_conformance_names_the_call(monkeypatch):
    real = LoadedProgram.run

    def run(self, method, *args):
        if method == "accumulate":
            raise RuntimeError("Failed to execute method accumulate, error: 0x12")
        return real(self, method, *args)

    monkeypatch.setattr(LoadedProgram, "run", run)
    with pytest.raises(ExportError, match=r"^method 'accumulate': call 3 \(accumulate\) on ExecuTorch's runtime failed \(RuntimeError: Failed to execute"):
        cache_exporter().export()


def test_known_internal_messages_get_advice():
    error = failures.explain("lowering", RuntimeError("Output node x is already in the inputs."), method="step")
    assert "method 'step': lowering failed" in str(error)
    assert "backend='portable'" in str(error)


def test_an_export_error_passes_through_unchanged():
    original = ExportError("already explained", method="m")
    assert failures.explain("stage", original) is original
    assert failures.blame_method("stage", original, ["m"], lambda method: None) is original


class _Column(torch.nn.Module):
    def column(self, x):
        return x.reshape(3, 1)


def test_eager_failing_on_a_given_call_is_a_clear_error():
    exporter = MultiMethodExporter(_Column().eval()).method("column", (torch.ones(3),))
    exporter.call_sequence([("column", (torch.ones(4),))])
    with pytest.raises(ExportError, match=r"^method 'column': call 1 \(column\): eager PyTorch fails with these inputs"):
        exporter.export()


if __name__ == "__main__":
    testing.main(__file__)
