"""Verification (c) fails on any divergence between the program and eager PyTorch."""

import torch

from pteforge import ExportError, Tolerance
from pteforge.program.testing_models import Cache, cache_exporter
from pteforge.support import testing
from pteforge.support.spec import Call
from pteforge.verify.conformance import check_conformance

import pytest


@pytest.fixture(scope="module")
def exported():
    return cache_exporter().export()


def _state(program_module):
    from pteforge.state import state as state_lib
    return [state_lib.StateBuffer(n, n == "cache", getattr(program_module, n).clone(), ()) for n in ("cache", "calls")]


def test_matching_module_passes(exported):
    module = Cache().eval()
    result = check_conformance(module, exported.data, _state(module), [Call("set", (torch.ones(2, 8),))], Tolerance())
    assert result.sequence == ("set",) and result.values_compared == 1 + 2 + 2


def test_different_weights_fail_on_the_output(exported):
    module = Cache().eval()
    with torch.no_grad():
        module.weight.add_(0.01)
    calls = [Call("accumulate", (torch.ones(4, 8),))]
    with pytest.raises(ExportError, match=r"method 'accumulate': call 1 \(accumulate\): output 0 differs from eager PyTorch: max abs error"):
        check_conformance(module, exported.data, _state(module), calls, Tolerance())


def test_different_initial_state_fails_before_any_call(exported):
    module = Cache(fill=0.25).eval()
    with pytest.raises(ExportError, match=r"buffer 'cache': after loading \(initial state\): state differs"):
        check_conformance(module, exported.data, _state(module), [], Tolerance())


def test_tolerance_is_applied(exported):
    module = Cache().eval()
    with torch.no_grad():
        module.weight.add_(1e-7)
    calls = [Call("accumulate", (torch.ones(4, 8),))]
    check_conformance(module, exported.data, _state(module), calls, Tolerance(atol=1e-4, rtol=0))
    with pytest.raises(ExportError):
        check_conformance(module, exported.data, _state(module), calls, Tolerance(atol=0, rtol=0))


def test_a_scaled_tolerance_follows_the_values_scale(exported):
    """Weights 1e-7 off: with inputs of 100 the values (in the hundreds) differ by about
    3e-4, more than atol=1e-5 allows, but less than atol=1e-5 times their magnitude;
    with inputs of 0.01 the scale is small and a tight scaled tolerance still fails."""
    calls = [Call("accumulate", (torch.full((4, 8), 100.0),))]
    module = Cache().eval()
    with torch.no_grad():
        module.weight.add_(1e-7)
    exact = Tolerance(atol=1e-5, rtol=0)
    with pytest.raises(ExportError, match=r"atol=1e-05, rtol=0\)"):
        check_conformance(module, exported.data, _state(module), calls, exact)
    result = check_conformance(module, exported.data, _state(module), calls, Tolerance(atol=1e-5, rtol=0, scaled=True))
    assert result.tolerance.scaled
    small = [Call("accumulate", (torch.full((4, 8), 0.01),))]
    with pytest.raises(ExportError, match=r"atol=1e-10 x scale, rtol=0; its scale [0-9.]+\)"):
        check_conformance(module, exported.data, _state(module), small, Tolerance(atol=1e-10, rtol=0, scaled=True))


def test_tolerance_for_a_value():
    tolerance = Tolerance(atol=1e-4, rtol=0, scaled=True)
    assert tolerance.atol_for(torch.tensor([0.5, -30.0])) == pytest.approx(3e-3)
    assert tolerance.atol_for(torch.tensor([0.5])) == 1e-4  # at least the atol
    assert tolerance.atol_for(torch.tensor([float("inf")])) == 1e-4
    assert tolerance.atol_for(torch.tensor([30.0, float("inf")])) == 1e-4  # as the C++ replay (replay_test)
    assert Tolerance(atol=1e-4).atol_for(torch.tensor([30.0])) == 1e-4


if __name__ == "__main__":
    testing.main(__file__)
