"""The memory plan as a picture: every state buffer and every method drawn with its size,
the same picture from pte_export(plan_svg = True) as from `pteforge report --svg`, and
clear errors for files that are not reports."""

import json
import os
import subprocess
import xml.etree.ElementTree as ElementTree

from runfiles import runfiles

from pteforge.report import plan_svg
from pteforge.support import testing

import pytest

_RUNFILES = runfiles.Create()
_SVG = "{http://www.w3.org/2000/svg}"


def _path(name: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/{name}")


def _report(name: str) -> dict:
    with open(_path(f"{name}.report.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("name", ["stateful", "cache_model"])
def test_the_picture_shows_every_buffer_and_method_with_its_size(name):
    report = _report(name)
    root = ElementTree.fromstring(plan_svg.render(report))
    texts = " | ".join(element.text or "" for element in root.iter(f"{_SVG}text"))
    titles = [element.text or "" for element in root.iter(f"{_SVG}title")]
    memory = report["memory"]
    assert f"Planned memory: {plan_svg.size_text(memory['total_planned_bytes_shared'])}" in texts
    assert plan_svg.size_text(memory["total_planned_bytes_separate"]) in texts
    for entry in report["state"]:
        assert entry["name"] in texts and f"{entry['bytes']} bytes at offset {entry['offset']}" in " ".join(titles)
    for method, entry in {**report["methods"], **report["generated_methods"]}.items():
        assert method in texts
        assert f"{method} plans {entry['planned_work_bytes']} bytes" in " ".join(titles)


def test_pte_export_draws_the_same_picture():
    with open(_path("stateful.plan.svg"), encoding="utf-8") as handle:
        assert handle.read() == plan_svg.render(_report("stateful"))


def _tool(*args):
    binary = _RUNFILES.Rlocation("pteforge/python/pteforge/cli/tool")
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=120)


def test_the_command_writes_the_picture(tmp_path):
    out = tmp_path / "plan.svg"
    result = _tool("report", f"--svg={out}", _path("stateful.report.json"))
    assert result.returncode == 0, result.stderr
    assert out.read_text() == plan_svg.render(_report("stateful"))
    summary = _tool("report", _path("cache_model.report.json"))
    assert summary.returncode == 0 and "planned memory" in summary.stdout


def test_a_file_that_is_not_a_report_is_refused(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text('{"name": 1}')
    result = _tool("report", f"--svg={tmp_path / 'out.svg'}", str(junk))
    assert result.returncode == 1 and "is not a readable pteforge report" in result.stderr
    assert not os.path.exists(tmp_path / "out.svg")
    missing = _tool("report", str(tmp_path / "missing.json"))
    assert missing.returncode == 1 and "missing.json" in missing.stderr


if __name__ == "__main__":
    testing.main(__file__)
