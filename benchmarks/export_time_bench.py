"""How long a Bergamot export takes: serial against parallel lowering, and without
against with the exporter's shortcuts (issue 23, goal 3).

  ./bazelw run //benchmarks:export_time_bench            # float32 and int8, about 12 minutes
  ./bazelw run //benchmarks:export_time_bench -- --quick # float32 only

Each export is `python -m pteforge.export` in its own process, as the Bazel build runs
it, three times: serial (PTEFORGE_EXPORT_JOBS=1), on every core without the shortcuts
(PTEFORGE_EXPORT_SHORTCUTS=0: the "before") and on every core with them. Every row of
one export must give the same bytes. Reports the
exporter's own time ("wrote ... in"), the whole process (with Python's imports) and
each stage the exporter prints. Writes a table to stdout and JSON to --out_dir
(default benchmarks/results). The machine should be otherwise idle: compare within one
run.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from absl import app, flags

import bench_output
from pteforge.support.forked import export_jobs

FLAGS = flags.FLAGS
flags.DEFINE_list("directions", ["enpt"], "Directions to export.")
flags.DEFINE_list("quantizations", ["none", "int8"], "Quantizations to export (none, int8).")
flags.DEFINE_bool("quick", False, "float32 only.")
flags.DEFINE_string("out_dir", None, "Where to write the JSON (default: benchmarks/results).")

# Issue 23, goal 3: seconds in the exporter, on every core with the shortcuts.
GOALS_S = {"none": 40.0, "int8": 60.0}
_STAGE = re.compile(r"^pteforge: (.+): ([0-9.]+) s$")
_WROTE = re.compile(r" in ([0-9.]+) s")


def _export(direction: str, quantization: str, jobs: int, shortcuts: bool, scratch: str) -> dict:
    out = os.path.join(scratch, f"{direction}-{quantization}-{jobs}-{shortcuts}.pte")
    command = [sys.executable, "-m", "pteforge.export", "--model=models.bergamot.export:make_exporter",
               f"--model_args=direction={direction}", "--backend=xnnpack", f"--out={out}"]
    if quantization != "none":
        # As //benchmarks:bergamot_*_int8_pte builds it.
        command += [f"--model_args=quantization={quantization}", "--model_args=max_rows=32"]
    env = dict(os.environ, PTEFORGE_EXPORT_JOBS=str(jobs), PTEFORGE_EXPORT_SHORTCUTS="1" if shortcuts else "0",
               PYTHONPATH=os.pathsep.join(sys.path))
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    process_s = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"export_time_bench: {' '.join(command)} failed:\n{result.stderr[-3000:]}")
    stages = {m.group(1): float(m.group(2)) for m in map(_STAGE.match, result.stderr.splitlines()) if m}
    wrote = _WROTE.search(result.stdout + result.stderr)
    with open(out, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"direction": direction, "quantization": quantization, "jobs": jobs, "shortcuts": shortcuts,
            "exporter_s": float(wrote.group(1)) if wrote else None, "process_s": process_s,
            "stages_s": stages, "pte_bytes": os.path.getsize(out), "_digest": digest}


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    quantizations = ["none"] if FLAGS.quick else FLAGS.quantizations
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    parallel = export_jobs()  # PTEFORGE_EXPORT_JOBS, else every core
    results, started = [], time.time()
    with tempfile.TemporaryDirectory() as scratch:
        for direction in FLAGS.directions:
            for quantization in quantizations:
                rows = []
                for jobs, shortcuts in [(1, True), (parallel, False), (parallel, True)]:
                    print(f"{direction} {quantization}: exporting with {jobs} process(es), shortcuts "
                          f"{'on' if shortcuts else 'off'} ...", file=sys.stderr)
                    rows.append(_export(direction, quantization, jobs, shortcuts, scratch))
                same = len({r.pop("_digest") for r in rows}) == 1
                for r in rows:
                    r["same_bytes"] = same
                results += rows
    goals = [{"goal": f"3 export time {r['direction']} {r['quantization']}",
              "target": f"<= {GOALS_S[r['quantization']]:.0f} s",
              "measured": f"{r['exporter_s']:.1f} s in the exporter, {r['process_s']:.1f} s with Python's imports",
              "met": r["exporter_s"] <= GOALS_S[r["quantization"]]}
             for r in results if r["jobs"] == parallel and r["shortcuts"]]
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["./bazelw run //benchmarks:export_time_bench --"] + sys.argv[1:]),
        "machine": bench_output.machine(),
        "note": "one export per row, python -m pteforge.export --backend=xnnpack; jobs = PTEFORGE_EXPORT_JOBS, "
                "shortcuts = PTEFORGE_EXPORT_SHORTCUTS; same_bytes: every row of that export gave the same .pte",
        "results": results,
        "goals": goals,
        "duration_s": time.time() - started,
    }
    json_path = os.path.join(out_dir, "export_time_bench.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=1)
    machine = document["machine"]
    print(f"{machine['cpu']}, {machine['cores']} cores; {document['date']}\n")
    print(f"{'direction':<9} {'quant':<5} {'jobs':>4} {'shortcuts':>9} {'exporter s':>10} {'process s':>9} "
          f"{'lowering s':>10} {'same .pte':>9}")
    for r in results:
        lowering = next((v for k, v in r["stages_s"].items() if k.startswith("to_edge")), float("nan"))
        print(f"{r['direction']:<9} {r['quantization']:<5} {r['jobs']:>4} {'on' if r['shortcuts'] else 'off':>9} "
              f"{r['exporter_s']:>10.1f} {r['process_s']:>9.1f} {lowering:>10.1f} {str(r['same_bytes']):>9}")
    for goal in goals:
        print(f"goal {goal['goal']}: {goal['measured']} ({'met' if goal['met'] else 'not met'}, {goal['target']})")
    print(f"\nwrote {json_path}")


if __name__ == "__main__":
    app.run(main)
