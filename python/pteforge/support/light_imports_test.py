"""Importing the package, a stage's package, or one of the light modules imports neither
torch nor executorch: `pteforge report` and the quiet settings work before (or without)
them, and a stage's names load only with the module that defines them."""

import os
import subprocess
import sys

from pteforge.support import testing

import pytest

_LIGHT = [
    "pteforge",
    "pteforge.capture",
    "pteforge.cli",
    "pteforge.cli.tool",
    "pteforge.cortex_m",
    "pteforge.emit",
    "pteforge.llm",
    "pteforge.lower",
    "pteforge.lower.speedups",
    "pteforge.program",
    "pteforge.report",
    "pteforge.report.plan_svg",
    "pteforge.run",
    "pteforge.seq2seq",
    "pteforge.state",
    "pteforge.support",
    "pteforge.support.errors",
    "pteforge.support.failures",
    "pteforge.support.program_file",
    "pteforge.support.progress",
    "pteforge.support.quiet",
    "pteforge.verify",
]


def _heavy_imports(module: str) -> str:
    """What of torch and executorch a fresh interpreter has imported after `module`."""
    script = f"import sys, {module}; print(sorted({{'torch', 'executorch'}} & set(sys.modules)))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout.strip()


@pytest.mark.parametrize("module", _LIGHT)
def test_a_light_module_imports_neither_torch_nor_executorch(module):
    assert _heavy_imports(module) == "[]"


def test_a_heavy_module_is_told_apart():
    # The check would pass vacuously if the interpreter could not see torch at all.
    assert _heavy_imports("pteforge.support.spec") == "['torch']"


if __name__ == "__main__":
    testing.main(__file__)
