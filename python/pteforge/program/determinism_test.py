"""Two independent exports of the same model give byte-identical .pte files: one made
by the Bazel build (//models:stateful_pte), one by a fresh process here with a
different hash seed."""

import os
import subprocess
import sys

from runfiles import runfiles

from pteforge.support import testing


def test_rebuild_is_byte_identical(tmp_path):
    built = runfiles.Create().Rlocation("pteforge/models/stateful.pte")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = tmp_path / "again.pte"
    result = subprocess.run(
        [sys.executable, "-m", "pteforge.export", "--model=models.stateful:make_exporter", f"--out={out}"],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    with open(built, "rb") as first:
        assert first.read() == out.read_bytes()
    report = runfiles.Create().Rlocation("pteforge/models/stateful.report.json")
    with open(report) as first:
        assert first.read() == (tmp_path / "again.report.json").read_text()


if __name__ == "__main__":
    testing.main(__file__)
