"""The wheel installs into a fresh virtual environment, and its `pteforge-export` exports
the stateful example there, with the installed package (not the workspace's sources)."""

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from runfiles import runfiles

from pteforge.support import testing

_RUNFILES = runfiles.Create()
WHEEL = _RUNFILES.Rlocation("pteforge/python/pteforge-0.1.0-py3-none-any.whl")
EXAMPLE = _RUNFILES.Rlocation("pteforge/models/stateful.py")


def _clean_environment(**extra):
    """No trace of Bazel's PYTHONPATH: only what the fresh environment has."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "TMPDIR") if name in os.environ}
    return {**keep, **extra}


def test_the_wheel_installs_and_exports_the_stateful_example(tmp_path):
    venv = tmp_path / "venv"
    # Without pip (and so without its old setuptools shadowing the newer one torch
    # needs): pteforge's own pip installs into it (pip --python).
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # torch and executorch come from pteforge's own environment (a test downloads
    # nothing): visible in the fresh one as if installed there.
    pathlib.Path(site, "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-index", WHEEL],
                               capture_output=True, text=True, env=_clean_environment())
    assert installed.returncode == 0, installed.stdout + installed.stderr

    user = tmp_path / "user"  # a user's own model, outside any workspace
    user.mkdir()
    shutil.copy(EXAMPLE, user / "stateful.py")
    out = user / "stateful.pte"
    exported = subprocess.run(
        [venv / "bin" / "pteforge-export", "--model=stateful:make_exporter", f"--out={out}"],
        cwd=user, capture_output=True, text=True, env=_clean_environment(PYTHONPATH=str(user)))
    assert exported.returncode == 0, exported.stderr
    assert out.read_bytes()[4:8] == b"ET12"  # an ExecuTorch program
    assert (user / "stateful.report.json").exists()
    summary = subprocess.run([venv / "bin" / "pteforge", "report", user / "stateful.report.json"],
                             capture_output=True, text=True, env=_clean_environment())
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout.startswith("stateful (portable): "), summary.stdout

    where = subprocess.run(
        [python, "-c", "import pteforge.program.exporter as e, importlib.util as u; "
                       "print(e.__file__); print(u.find_spec('pteforge.program.exporter_test'))"],
        capture_output=True, text=True, env=_clean_environment(), check=True).stdout.split()
    assert where[0].startswith(site), where  # the installed package
    assert where[1] == "None"  # tests are not part of it


if __name__ == "__main__":
    testing.main(__file__)
