"""pytest under Bazel: the smoke .pte built by the genrule runs in ExecuTorch's Python
runtime and matches the eager model it was exported from."""

import torch
from executorch.runtime import Runtime
from runfiles import runfiles

from pteforge.support import testing
from tests.smoke.export_smoke import Affine


def test_smoke_pte_matches_eager() -> None:
    path = runfiles.Create().Rlocation("pteforge/tests/smoke/smoke.pte")
    program = Runtime.get().load_program(path)
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.0, 2.0]])
    (got,) = program.load_method("forward").execute([x])
    torch.testing.assert_close(got, Affine()(x), rtol=0, atol=1e-6)


if __name__ == "__main__":
    testing.main(__file__)
