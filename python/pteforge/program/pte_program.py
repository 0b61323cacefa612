"""The result of an export: the .pte bytes, the report, and how to save them."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from typing import Any, Mapping

from pteforge.report import report as report_lib


@dataclasses.dataclass(frozen=True)
class PteProgram:
    """A verified ExecuTorch program.

    Attributes:
      data: the .pte file contents.
      report: the report dictionary (see pteforge.report.report).
      timings: seconds spent per export stage (not part of the report, which stays
        deterministic).
      replay: the conformance replay record (pteforge.verify.replay), if the export was asked
        to keep one.
    """

    data: bytes
    report: Mapping[str, Any]
    timings: Mapping[str, float] = dataclasses.field(default_factory=dict)
    replay: str | None = None

    def summary(self) -> str:
        """A short human-readable description of the program."""
        return report_lib.summary(self.report)

    def report_json(self) -> str:
        """The report as JSON text."""
        return json.dumps(self.report, indent=2, sort_keys=True) + "\n"

    def save(self, path: str | os.PathLike, report_path: str | os.PathLike | None = None) -> tuple[str, str]:
        """Writes the .pte and its report (default: <path without .pte>.report.json).

        Each file is written to a temporary name and renamed into place, so a reader
        never sees a partial file and a failure leaves no output behind.

        Returns:
          The paths written.
        """
        path = os.fspath(path)
        if report_path is None:
            stem = path[: -len(".pte")] if path.endswith(".pte") else path
            report_path = stem + ".report.json"
        report_path = os.fspath(report_path)
        _write_atomically(path, self.data)
        try:
            _write_atomically(report_path, self.report_json().encode())
        except BaseException:
            os.unlink(path)
            raise
        return path, report_path


    def save_replay(self, path: str | os.PathLike) -> str:
        """Writes the replay record (atomically, as save()); the export must have kept one."""
        if self.replay is None:
            raise ValueError("this program has no replay record: export it with record_replay=True")
        path = os.fspath(path)
        _write_atomically(path, self.replay.encode())
        return path


    def save_plan_svg(self, path: str | os.PathLike) -> str:
        """Writes the memory plan as an SVG picture (pteforge.report.plan_svg), atomically."""
        from pteforge.report import plan_svg  # only when asked for

        path = os.fspath(path)
        # As the saved report reads (sorted keys), so `pteforge report --svg` draws the same.
        _write_atomically(path, plan_svg.render(json.loads(self.report_json())).encode())
        return path


def _write_atomically(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".pteforge-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
