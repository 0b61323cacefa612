"""//models:stateful_pte as built by Bazel, run with ExecuTorch's own Python runtime
(not pteforge's loader): state written by one method is read by the others, and
set_cache's private call counter is not clobbered by them."""

import torch
from executorch.runtime import Runtime
from runfiles import runfiles

from pteforge.support import testing


def _load():
    path = runfiles.Create().Rlocation("pteforge/models/stateful.pte")
    program = Runtime.get().load_program(path)
    # Load every method before the first call, then write the initial state.
    methods = {name: program.load_method(name) for name in program.method_names}
    methods["reset_state"].execute([])
    return methods


def test_methods_share_the_cache():
    methods = _load()
    (initial,) = methods["get_cache"].execute([torch.zeros(4, 8)])
    assert torch.equal(initial, torch.full((4, 8), 0.5))
    methods["set_cache"].execute([torch.full((2, 8), 3.0)])
    (after_set,) = methods["get_cache"].execute([torch.zeros(4, 8)])
    assert torch.equal(after_set[:2], torch.full((2, 8), 3.0))
    assert torch.equal(after_set[2:], torch.full((2, 8), 0.5))
    (sums,) = methods["accumulate"].execute([torch.zeros(4, 8)])
    assert torch.equal(sums, after_set.sum(dim=0, keepdim=True))


def test_private_counter_survives_other_methods():
    methods = _load()
    for expected in range(1, 4):
        (calls,) = methods["set_cache"].execute([torch.ones(1, 8)])
        assert calls.item() == expected
        methods["accumulate"].execute([torch.ones(4, 8)])
        methods["get_cache"].execute([torch.ones(4, 8)])


def test_reset_state_restores_the_initial_values():
    methods = _load()
    methods["set_cache"].execute([torch.full((4, 8), 9.0)])
    methods["reset_state"].execute([])
    (cache,) = methods["get_cache"].execute([torch.zeros(4, 8)])
    assert torch.equal(cache, torch.full((4, 8), 0.5))
    (calls,) = methods["set_cache"].execute([torch.ones(1, 8)])
    assert calls.item() == 1


if __name__ == "__main__":
    testing.main(__file__)
