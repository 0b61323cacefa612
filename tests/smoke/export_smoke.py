"""Exports the smoke-test model, y = x @ W^T + b, to a .pte (the build-chain check).

W[i][j] = (i - j) / 2 and b[i] = i, so the C++ side can recompute the expected
output on its own (smoke_run.cc) without sharing any data with this script.

Usage: export_smoke.py <output.pte>
"""

import sys

from pteforge.support.quiet import held_back, quiet_dependencies

quiet_dependencies()  # before torch and executorch are imported
import torch  # noqa: E402
from executorch.exir import to_edge  # noqa: E402


class Affine(torch.nn.Module):
    """A 4 -> 3 affine map with weights the C++ check can recompute."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)
        with torch.no_grad():
            rows = torch.arange(3, dtype=torch.float32).unsqueeze(1)
            cols = torch.arange(4, dtype=torch.float32).unsqueeze(0)
            self.linear.weight.copy_((rows - cols) / 2)
            self.linear.bias.copy_(torch.arange(3, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with held_back():
        program = torch.export.export(Affine().eval(), (torch.zeros(2, 4),), strict=True)
        buffer = to_edge(program).to_executorch().buffer
    with open(argv[1], "wb") as out:
        out.write(buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
