"""What the soak scripts share (translate_soak.py, vad_soak.py): a tool's resident memory
read from /proc while it runs, progress lines on stderr, the flatness check, the table and
the JSON. Standard library only; Linux (/proc/<pid>/status).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Callable

# benchmarks/ (bench_output.py), from the source tree or a Bazel runfiles tree alike.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench_output  # noqa: E402


class UsageError(Exception):
    """A bad argument or a missing input: the script exits with status 2."""


def repo_root() -> str:
    """The repository: the workspace under `bazel run`, else where this file lies
    (benchmarks/soak/soak_common.py)."""
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if workspace:
        return workspace
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tool_env() -> dict:
    """The environment for the tool under test: without this script's own runfiles
    variables (set by `bazel run`), which would make it look for its model here."""
    return {k: v for k, v in os.environ.items() if k not in ("RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "JAVA_RUNFILES")}


def check_binary(path: str, target: str) -> str:
    """`path` as an absolute path, or UsageError naming the Bazel target that builds it."""
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(f"{path}: no such executable (build it first: ./bazelw build {target})")
    return os.path.abspath(path)


def file_stamps(binary: str) -> dict:
    """Size and modification time of the binary and of the programs in its runfiles
    (its default model), to notice a rebuild while the soak runs."""
    paths = [binary]
    models = binary + ".runfiles/pteforge/models"
    for folder, _, names in os.walk(models, followlinks=True):
        paths += sorted(os.path.join(folder, name) for name in names if name.endswith(".pte"))
    stamps = {}
    for path in paths:
        stat = os.stat(path)  # follows symlinks: the file a rebuild replaces
        stamps[path] = {"size": stat.st_size, "mtime": stat.st_mtime}
    return stamps


def read_memory(pid: int) -> dict | None:
    """VmRSS and VmHWM of a running process in MB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return None
    try:
        return {"rss_mb": int(fields["VmRSS"].split()[0]) / 1024, "hwm_mb": int(fields["VmHWM"].split()[0]) / 1024}
    except (KeyError, ValueError, IndexError):
        return None  # a zombie has no VmRSS


def machine() -> dict:
    """What the soak ran on (the benchmarks' bench_output.machine), and how busy the
    machine was when it started."""
    return {**bench_output.machine(), "load_average": os.getloadavg()}


def check_lines(checks) -> list[str]:
    """"(a) name: PASS [extra]" or "... FAIL [extra] - reason", for (name, check, extra)
    triples whose check is a dict with "ok" and, when failed, "reason"."""
    return [f"{name}: {'PASS' if check['ok'] else 'FAIL'}{extra}"
            + ("" if check["ok"] else f" - {check.get('reason', '')}") for name, check, extra in checks]


def drain(stream, sink: Callable[[bytes], None]) -> threading.Thread:
    """A thread that hands every line of `stream` to `sink` until EOF (so the tool never
    blocks on a full pipe)."""
    def run():
        for line in iter(stream.readline, b""):
            sink(line)
        stream.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def run_once(command: list[str], data: bytes) -> dict:
    """Runs `command` on `data` (stdin) to the end: stdout (bytes), stderr (text),
    returncode, seconds and peak_rss_mb (wait4's ru_maxrss: the tool's own peak, as it
    is far larger than this script was when it forked)."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=tool_env())
    out, err = [], []
    readers = [drain(process.stdout, out.append), drain(process.stderr, err.append)]
    try:
        process.stdin.write(data)
        process.stdin.close()
    except OSError:
        pass  # the tool died early: its status and stderr say why
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    return {"stdout": b"".join(out), "stderr": b"".join(err).decode("utf-8", "replace"),
            "returncode": process.returncode, "seconds": time.monotonic() - started,
            "peak_rss_mb": usage.ru_maxrss / 1024}


class Progress:
    """Progress lines on stderr, pteforge style: one each time `done` passes another tenth
    of `total`, and a heartbeat after `quiet_seconds` without one (a tool that reports
    nothing until the end still shows it is alive)."""

    def __init__(self, name: str, total: int, unit: str, quiet_seconds: float = 60.0):
        self.name, self.total, self.unit, self.quiet_seconds = name, total, unit, quiet_seconds
        self.next_tenth = 1
        self.last_line = 0.0

    def update(self, sample: dict, done: int, note: str = "") -> None:
        line = None
        if done * 10 >= self.next_tenth * self.total:
            while done * 10 >= self.next_tenth * self.total:
                self.next_tenth += 1
            line = f"{done}/{self.total} {self.unit}"
        elif sample["t"] - self.last_line >= self.quiet_seconds:
            line = f"{done}/{self.total} {self.unit}{note}"
        if line:
            self.last_line = sample["t"]
            print(f"{self.name}: {line}, {sample['t']:.0f} s, RSS {sample['rss_mb']:.0f} MB", file=sys.stderr, flush=True)


def sample_until_exit(process: subprocess.Popen, started: float, seconds: float,
                      counters: Callable[[], dict], on_sample: Callable[[dict], None]) -> list[dict]:
    """Reads the process's memory every `seconds` until it exits. Each sample: t (s since
    `started`), rss_mb, hwm_mb and what `counters` returns at that moment."""
    samples = []
    while True:
        memory = read_memory(process.pid)
        if memory is not None and process.poll() is None:
            sample = {"t": round(time.monotonic() - started, 3), **memory, **counters()}
            samples.append(sample)
            on_sample(sample)
        try:
            process.wait(timeout=seconds)
            return samples
        except subprocess.TimeoutExpired:
            pass


def flatness(samples: list[dict], progress_key: str, total: int, warmup: float, tolerance: float) -> dict:
    """The memory check: after the warm-up (the first `warmup` fraction of the work, by
    `progress_key`), the largest RSS must be within `tolerance` of the first sample after
    the warm-up. The reference is that first sample, not the median: growth then shows
    whole, however late it comes. When the tool reports no progress while it runs (fewer
    than 3 samples past the warm-up by work done), the warm-up is the first `warmup`
    fraction of the run's time instead; `basis` says which."""
    after = [s for s in samples if s[progress_key] >= warmup * total]
    basis = progress_key
    if len(after) < 3 and samples:
        end = samples[-1]["t"]
        after = [s for s in samples if s["t"] >= warmup * end]
        basis = "time"
    result = {"basis": basis, "warmup_fraction": warmup, "tolerance": tolerance, "samples": len(samples),
              "samples_after_warmup": len(after), "reference": "first sample after the warm-up",
              "first_mb": samples[0]["rss_mb"] if samples else None, "last_mb": samples[-1]["rss_mb"] if samples else None,
              "max_mb": max((s["rss_mb"] for s in samples), default=None),
              "peak_hwm_mb": max((s["hwm_mb"] for s in samples), default=None)}
    if len(after) < 2:
        result.update(ok=False, reason="fewer than 2 samples after the warm-up: run longer or lower --sample_seconds")
        return result
    first, largest = after[0]["rss_mb"], max(s["rss_mb"] for s in after)
    growth = (largest - first) / first
    result.update(after_warmup_mb=first, after_warmup_t=after[0]["t"], max_after_warmup_mb=largest,
                  median_after_warmup_mb=statistics.median(s["rss_mb"] for s in after),
                  growth_pct=100 * growth, ok=growth <= tolerance)
    if not result["ok"]:
        result["reason"] = f"RSS grew {100 * growth:.1f}% after the warm-up (allowed {100 * tolerance:.0f}%)"
    return result


def table(rows: list[tuple[str, str]]) -> str:
    """Two rows of aligned columns: the names, then the values."""
    widths = [max(len(name), len(value)) for name, value in rows]
    return "\n".join(["  ".join(name.rjust(w) for (name, _), w in zip(rows, widths)),
                      "  ".join(value.rjust(w) for (_, value), w in zip(rows, widths))])


def mb(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def write_json(path: str | None, document: dict) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1)
            f.write("\n")
