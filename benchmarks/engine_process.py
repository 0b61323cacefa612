"""Runs one engine of a benchmark in its own process, started through peak_rss.py so
that the peak RSS it reports is the engine's own (see peak_rss.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from runfiles import runfiles


def run(command: list[str], stdin_path: str | None = None, env: dict | None = None) -> tuple[str, str]:
    """Runs `command` (stdin from `stdin_path` if given); returns its stdout and
    stderr, the last stderr line being {"peak_rss_mb": ...}. Raises RuntimeError with
    the end of stderr if it fails. The command's environment is `env` if given (an
    engine in another venv must not see this one's packages), else this process's with
    its sys.path as PYTHONPATH (a worker script of this benchmark imports what it does)."""
    launcher = [sys.executable, "-S", runfiles.Create().Rlocation("pteforge/benchmarks/peak_rss.py")]
    if env is None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with open(stdin_path or os.devnull, "rb") as stdin, tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        returncode = subprocess.run(launcher + command, stdin=stdin, stdout=out, stderr=err, env=env,
                                    text=True).returncode
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if returncode != 0:
        raise RuntimeError(f"{' '.join(command[:2])} failed ({returncode}):\n{stderr[-3000:]}")
    return stdout, stderr


def json_lines(text: str) -> list[dict]:
    """The lines of `text` that are JSON objects, parsed."""
    return [json.loads(line) for line in map(str.strip, text.splitlines()) if line.startswith("{") and line.endswith("}")]
