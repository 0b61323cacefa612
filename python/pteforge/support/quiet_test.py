"""A program using pteforge as a library prints only what it prints itself: no line
of torch's or torchao's import-time logging, no warning, unless pteforge is verbose."""

import os
import subprocess
import sys

from pteforge.support import testing

_SCRIPT = """
import torch
from pteforge import MultiMethodExporter

class Running(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(3))
        self.scale = torch.nn.Linear(3, 3)

    def step(self, x):
        self.total.add_(self.scale(x))
        return self.total.clone()

for backend in ("portable", "xnnpack"):
    exporter = MultiMethodExporter(Running().eval()).shared_state("total").method("step", (torch.ones(3),))
    exporter.export(backend=backend)
    print("exported", backend)
"""


def _run(script: str, verbose: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PTEFORGE_VERBOSE="1" if verbose else "0")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)


def test_an_export_from_a_script_prints_only_the_script_s_lines():
    quiet = _run(_SCRIPT, verbose=False)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.splitlines() == ["exported portable", "exported xnnpack"]
    assert quiet.stderr == ""
    # What was held back is there when asked for (the test would pass vacuously if
    # nothing were ever printed): the import alone prints it.
    verbose = _run("import torch\nfrom pteforge import MultiMethodExporter\n", verbose=True)
    assert verbose.returncode == 0, verbose.stderr
    assert "Failed to load" in verbose.stderr or "Enum subclass" in verbose.stderr


if __name__ == "__main__":
    testing.main(__file__)
