"""read_program reads a .pte's program without executorch.exir's package imports, gives
what ExecuTorch's own reader gives, leaves `import executorch.exir` working afterwards,
and refuses a file that is not a program with a message naming it."""

import os
import subprocess
import sys

from runfiles import runfiles

from pteforge.support import testing
from pteforge.support.program_file import ProgramFileError, read_program

import pytest

_PROGRAM = runfiles.Create().Rlocation("pteforge/models/stateful.pte")

# In a fresh interpreter: what reading imported, then the full exir after it.
_SCRIPT = """
import sys
from pteforge.support.program_file import read_program
program = read_program(sys.argv[1])
print(sorted(plan.name for plan in program.execution_plan))
print("exir's capture imported:", "executorch.exir.capture" in sys.modules)
from executorch.exir import to_edge
from executorch.exir._serialize._program import deserialize_pte_binary
with open(sys.argv[1], "rb") as f:
    full = deserialize_pte_binary(f.read())
full = getattr(full, "program", full)
print("same as exir's reader:", full == program)
"""


def test_reads_the_program_without_exirs_package_imports():
    result = subprocess.run([sys.executable, "-c", _SCRIPT, _PROGRAM], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "accumulate" in lines[0] and "set_cache" in lines[0]
    assert lines[1:] == ["exir's capture imported: False", "same as exir's reader: True"]


def test_a_file_that_is_not_a_program_is_refused(tmp_path):
    junk = tmp_path / "junk.pte"
    junk.write_bytes(b"not a program" * 10)
    with pytest.raises(ProgramFileError, match=f"{junk} is not a readable ExecuTorch program"):
        read_program(str(junk))


if __name__ == "__main__":
    testing.main(__file__)
