"""translate --workers: several Sessions of one program, each on its own thread, give
the same lines as one worker, in both directions. Under --config=tsan this is the check
that the workers share nothing unguarded (docs/runtime.md, "Threads")."""

import subprocess

import pytest
from runfiles import runfiles

from pteforge.support import testing

_RUNFILES = runfiles.Create()
PROGRAMS = {
    "enpt": _RUNFILES.Rlocation("pteforge/cc/tools/translate"),
    "pten": _RUNFILES.Rlocation("pteforge/cc/tools/translate_pt_en"),
}
SENTENCES = _RUNFILES.Rlocation("pteforge/models/bergamot/corpus/sentences_en.txt")
LINES = 24


def _translate(program: str, workers: int, text: bytes) -> str:
    # --threads=1: the kernels' pool without worker threads. Its handoffs are atomics in
    # the uninstrumented wheel, invisible to ThreadSanitizer; the workers are our threads.
    result = subprocess.run([program, "--threads=1", f"--workers={workers}"], input=text,
                            capture_output=True, timeout=600)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 0, stderr
    assert "ThreadSanitizer" not in stderr, stderr
    return result.stdout.decode()


@pytest.mark.parametrize("direction", sorted(PROGRAMS))
def test_workers_translate_as_one_does(direction):
    with open(SENTENCES, "rb") as file:
        text = b"".join(file.readlines()[:LINES])
    one = _translate(PROGRAMS[direction], 1, text)
    assert len(one.splitlines()) == LINES
    for workers in (2, 3):
        assert _translate(PROGRAMS[direction], workers, text) == one, f"--workers={workers}"


if __name__ == "__main__":
    testing.main(__file__)
