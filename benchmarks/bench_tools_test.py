"""The benchmarks' own tools: the peak-RSS launcher, the engine runner and the targets'
ratios."""

import json
import subprocess
import sys

import pytest
from runfiles import runfiles

from benchmarks import bench_output, engine_process
from pteforge.support import testing

_LAUNCHER = runfiles.Create().Rlocation("pteforge/benchmarks/peak_rss.py")
_ALLOCATE = "import sys; block = bytearray({mb} << 20); block[::4096] = b'x' * len(block[::4096]); sys.exit({status})"


def _launch(child_mb: int, status: int = 0) -> tuple[int, float]:
    command = [sys.executable, _LAUNCHER, sys.executable, "-c", _ALLOCATE.format(mb=child_mb, status=status)]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, json.loads(result.stderr.strip().splitlines()[-1])["peak_rss_mb"]


def test_reports_the_child_peak_not_the_parents():
    parent = bytearray(600 << 20)  # the benchmark's own memory must not count
    parent[::4096] = b"x" * len(parent[::4096])
    _, small = _launch(50)
    _, large = _launch(250)
    assert 50 <= small < 200, small
    assert 250 <= large < 400, large
    del parent


def test_passes_the_exit_status_through():
    status, _ = _launch(1, status=3)
    assert status == 3


def test_engine_process_passes_stdin_and_returns_both_streams(tmp_path):
    sentences = tmp_path / "in.txt"
    sentences.write_text("one\ntwo\n")
    echo = "import sys; text = sys.stdin.read(); print(text.upper(), end=''); print('{\"lines\": 2}', file=sys.stderr)"
    stdout, stderr = engine_process.run([sys.executable, "-c", echo], stdin_path=str(sentences))
    assert stdout == "ONE\nTWO\n"
    records = engine_process.json_lines(stderr)
    assert records[0] == {"lines": 2} and "peak_rss_mb" in records[-1]


def test_engine_process_failure_shows_the_engines_error():
    with pytest.raises(RuntimeError, match=r"failed \(4\):\n.*broken engine"):
        engine_process.run([sys.executable, "-c", "import sys; print('broken engine', file=sys.stderr); sys.exit(4)"])


def _result(engine, ms, rss):
    return {"engine": engine, "beams": 1, "threads": 1, "ms_per_sentence": ms, "peak_rss_mb": rss}


def test_targets_are_ratios_of_the_measured_engines():
    document = {
        "results": [_result("pteforge-xnnpack", 100.0, 300.0), _result("hf-eager", 250.0, 600.0),
                    _result("ct2-fp32", 80.0, 400.0)],
    }
    measured = [t["measured"] for t in bench_output.targets(document)]
    assert measured == [2.5, 1.25, 0.5]


def test_unmeasured_targets_say_so():
    document = {"results": [_result("pteforge-xnnpack", 100.0, 300.0)]}
    assert [t["measured"] for t in bench_output.targets(document)] == [None] * 3


def test_a_row_of_runs_is_their_median_and_largest_peak():
    runs = [([1, 2], {"decode_tokens_per_s": 10.0, "peak_rss_mb": 5.0, "gguf": "a"}),
            ([1, 2], {"decode_tokens_per_s": 30.0, "peak_rss_mb": 7.0, "gguf": "b"}),
            ([1, 3], {"decode_tokens_per_s": 20.0, "peak_rss_mb": 6.0, "gguf": "c"})]
    tokens, stats = bench_output.median_run(runs)
    assert tokens == [1, 2]
    assert stats == {"decode_tokens_per_s": 20.0, "peak_rss_mb": 7.0, "gguf": "a"}


def test_machine_names_the_cpu_and_its_topology():
    machine = bench_output.machine()
    assert machine["cores"] >= 1
    assert machine["cpu_id"].startswith(("family ", "implementer ")), machine
    assert machine["threads_per_core"] >= 1, machine


if __name__ == "__main__":
    testing.main(__file__)
