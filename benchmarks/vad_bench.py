"""Silero VAD, side by side in one run on the same audio, 1 thread: silero's own model in
PyTorch (the jit) and in ONNX Runtime (silero_vad.onnx, the way most users deploy it,
driven as silero's OnnxWrapper drives it: one run per chunk from a Python loop), and
pteforge's vad tool (C++) on the XNNPACK, portable and int8 programs.

    ./bazelw run //benchmarks:vad_bench                 # 10 minutes of audio, 3 repeats
    ./bazelw run //benchmarks:vad_bench -- --quick      # 2 minutes, 1 repeat

The audio is made here: espeak-ng speech (English, British English, Portuguese
voices; the repository's sentence sets) with pauses of 0.3 to 2.5 s, over low pink
noise, 16 kHz (sox). Each engine runs in its own process through peak_rss.py (its peak
RSS is its own); the time is the chunk loop's (the model's calls, as
get_speech_timestamps makes them), the median of --repeats runs. Segments are
compared with silero's utility on the jit's probabilities (get_speech_timestamps'
defaults), and every chunk's probability with the jit's (the largest difference). Also measured: the vad tool's peak RSS with 1 and 64 streams on one program,
and the multiply-accumulates per chunk against the time.

Writes a table to stdout, and JSON and a PNG plot to --out_dir (default
benchmarks/results): vad_bench.json, vad_bench.png.
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

from absl import app, flags
from runfiles import runfiles

from benchmarks import bench_output, engine_process, speech_audio

FLAGS = flags.FLAGS
flags.DEFINE_float("minutes", 10.0, "Minutes of audio to make and measure.")
flags.DEFINE_integer("repeats", 3, "Runs per engine; the median time is reported.")
flags.DEFINE_bool("quick", False, "2 minutes of audio, 1 repeat.")
flags.DEFINE_string("out_dir", None, "Where to write the JSON and the plot (default: benchmarks/results).")

_RUNFILES = runfiles.Create()
RATE = 16000
CHUNK = 512
JIT, ORT = "silero jit (PyTorch)", "ONNX Runtime (silero_vad.onnx)"
XNNPACK, PORTABLE, INT8 = "pteforge XNNPACK", "pteforge portable", "pteforge int8"
PROGRAMS = {XNNPACK: "silero_vad_xnnpack", PORTABLE: "silero_vad", INT8: "silero_vad_16k_int8"}
STREAMS = (1, 64)


def _path(runfiles_path: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{runfiles_path}")


def multiply_accumulates() -> int:
    """Per 16 kHz chunk: STFT (258 x 256 x 4 frames), the encoder's four convolutions
    (kernel 3; 4, 2, 1, 1 steps), the LSTM cell's two products and the decoder."""
    stft = 258 * 256 * 4
    encoder = 128 * 129 * 3 * 4 + 64 * 128 * 3 * 2 + 64 * 64 * 3 * 1 + 128 * 64 * 3 * 1
    lstm = 2 * 512 * 128
    return stft + encoder + lstm + 128


def _run_python(engine: str, audio: str) -> dict:
    stdout, stderr = engine_process.run([sys.executable, _path("benchmarks/vad_python_worker.py"),
                                         f"--engine={'jit' if engine == JIT else 'onnx'}", f"--audio={audio}"])
    record = engine_process.json_lines(stdout)[-1]
    record.update(engine_process.json_lines(stderr)[-1])
    return record


def _run_vad(program: str, audio: str, streams: int = 1) -> dict:
    command = [_path("cc/tools/vad"), f"--model={_path(f'models/silero_vad/{program}.pte')}", "--threads=1",
               "--units=samples", "--probs", "--stats"] + [audio] * streams
    stdout, stderr = engine_process.run(command)
    lines = engine_process.json_lines(stderr)
    record = dict(lines[-2])  # --stats, then peak_rss.py's line
    record.update(lines[-1])
    output = [line.split() for line in stdout.splitlines()]
    record["probabilities"] = [float(fields[-1]) for fields in output if "prob" in fields]
    record["segments"] = [[int(v) for v in fields[-2:]] for fields in output if "prob" not in fields]
    return record


def _agreement(segments: list, reference: list) -> dict:
    if segments == reference:
        return {"identical": True, "segments": len(segments), "max_boundary_difference_samples": 0}
    differences = [abs(a - b) for s, r in zip(segments, reference) for a, b in zip(s, r)]
    return {"identical": False, "segments": len(segments), "reference_segments": len(reference),
            "boundaries_differing": sum(d > 0 for d in differences),
            "max_boundary_difference_samples": max(differences, default=None)}


def goals(results: list[dict]) -> list[dict]:
    """The issue's goal as a measured ratio."""
    by_engine = {r["engine"]: r for r in results}
    ours = [r for r in results if r["engine"].startswith("pteforge") and r["agreement"]["identical"]]
    best = max(ours, key=lambda r: r["chunks_per_s"], default=None)
    ort = by_engine.get(ORT)
    return [{
        "goal": "pteforge's best >= 2x ONNX Runtime's chunks per second at 1 thread, with identical segments",
        "measured": best["chunks_per_s"] / ort["chunks_per_s"] if best and ort else None,
        "best": best["engine"] if best else None,
        "need": ">= 2.0",
    }]


def table(document: dict) -> str:
    machine = document["machine"]
    lines = [
        f"Silero VAD v6, {document['audio_seconds'] / 60:.1f} min of 16 kHz speech ({document['chunks']} chunks of 32 ms), "
        f"1 thread; {machine['cpu']}, {machine['cores']} cores; {document['date']}",
        f"command: {document['command']}",
        "",
        f"{'engine':<32} {'us/chunk':>9} {'chunks/s':>9} {'RTF':>8} {'GMAC/s':>7} {'load ms':>8} {'RSS MB':>7} "
        f"{'|p - jit|':>9} {'segments':>9}",
    ]
    for r in document["results"]:
        agreement = "same" if r["agreement"]["identical"] else \
            f"{r['agreement'].get('boundaries_differing')}x{r['agreement']['max_boundary_difference_samples']}"
        lines.append(f"{r['engine']:<32} {r['us_per_chunk']:>9.1f} {r['chunks_per_s']:>9.0f} "
                     f"{r['real_time_factor']:>8.5f} {r['gmac_per_s']:>7.2f} {r['load_ms']:>8.1f} "
                     f"{r['peak_rss_mb']:>7.1f} {r['max_probability_difference_vs_jit']:>9.1e} {agreement:>9}")
    lines += ["segments: \"same\" as silero's utility on the jit, or NxM: N boundaries differ, by M samples at most",
              "", f"{document['macs_per_chunk'] / 1e6:.2f} M multiply-accumulates per chunk; a core's nominal peak "
                  f"(2 AVX2 FMA units, 8 floats, at {document['cpu_mhz']:.0f} MHz) is "
                  f"{document['nominal_peak_gmac_per_s']:.0f} GMAC/s (estimate)", "", "vad tool, peak RSS:"]
    for s in document["streams"]:
        lines.append(f"  {s['program']:<20} {s['streams']:>3} streams: {s['peak_rss_mb']:.1f} MB")
    lines += ["", "goals:"]
    for goal in document["goals"]:
        measured = "not measured" if goal["measured"] is None else f"{goal['measured']:.2f} ({goal['best']})"
        lines.append(f"  {goal['goal']}: {measured} (need {goal['need']})")
    return "\n".join(lines)


def plot(document: dict, path: str) -> None:
    import logging

    import matplotlib

    logging.getLogger("matplotlib").setLevel(logging.WARNING)  # its font cache notice

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = document["results"]
    figure, axis = plt.subplots(figsize=(8, 3.6))
    names = [r["engine"] for r in results]
    values = [r["us_per_chunk"] for r in results]
    bars = axis.barh(names, values, color=["#999999" if not n.startswith("pteforge") else "#2a7ab0" for n in names])
    for bar, value in zip(bars, values):
        axis.text(value * 1.05, bar.get_y() + bar.get_height() / 2, f"{value:.0f} us", va="center", fontsize=8)
    axis.set_xlim(0, max(values) * 1.2)
    axis.invert_yaxis()
    axis.set_xlabel("microseconds per 32 ms chunk, 1 thread (real time: 32,000)")
    axis.set_title(f"Silero VAD, {document['audio_seconds'] / 60:.0f} min of speech ({document['machine']['cpu'][:30]})",
                   fontsize=10)
    axis.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def _cpu_mhz() -> float:
    try:
        with open("/proc/cpuinfo") as f:
            return next(float(line.split(":")[1]) for line in f if line.startswith("cpu MHz"))
    except (OSError, StopIteration, ValueError):
        return float("nan")


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    if FLAGS.quick:
        FLAGS.minutes, FLAGS.repeats = 2.0, 1
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    macs = multiply_accumulates()
    with tempfile.TemporaryDirectory() as scratch:
        audio = os.path.join(scratch, "speech.wav")
        print(f"making {FLAGS.minutes:.0f} minutes of speech (espeak-ng, sox) ...", file=sys.stderr)
        seconds = speech_audio.make_speech(audio, 60 * FLAGS.minutes)
        runs: dict[str, list[dict]] = {}
        for engine in (JIT, ORT, XNNPACK, PORTABLE, INT8):
            print(f"{engine} x {FLAGS.repeats} ...", file=sys.stderr)
            runs[engine] = [_run_python(engine, audio) if engine in (JIT, ORT) else _run_vad(PROGRAMS[engine], audio)
                            for _ in range(FLAGS.repeats)]
        reference, jit_probabilities = runs[JIT][0]["segments"], runs[JIT][0]["probabilities"]
        results = []
        for engine, measured in runs.items():
            us = statistics.median(m["us_per_chunk"] for m in measured)
            results.append({
                "engine": engine,
                "us_per_chunk": us,
                "us_per_chunk_runs": [m["us_per_chunk"] for m in measured],
                "chunks_per_s": 1e6 / us,
                "real_time_factor": us / (1e6 * CHUNK / RATE),
                "gmac_per_s": macs / us / 1e3,
                "load_ms": statistics.median(m["load_ms"] for m in measured),
                "peak_rss_mb": max(m["peak_rss_mb"] for m in measured),
                "agreement": _agreement(measured[0]["segments"], reference),
                "max_probability_difference_vs_jit": max(
                    abs(a - b) for a, b in zip(measured[0]["probabilities"], jit_probabilities)),
            })
        clip = os.path.join(scratch, "clip.wav")  # 30 s: the streams' RSS, not their time
        subprocess.run(["sox", "-V1", "-D", audio, clip, "trim", "0", "30"], check=True)
        streams = [{"program": PROGRAMS[engine], "streams": n, "peak_rss_mb": _run_vad(PROGRAMS[engine], clip, n)["peak_rss_mb"]}
                   for engine in (PORTABLE, XNNPACK) for n in STREAMS]
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["./bazelw run //benchmarks:vad_bench --"] + sys.argv[1:]),
        "machine": bench_output.machine(),
        "audio_seconds": seconds,
        "chunks": runs[XNNPACK][0]["chunks"],
        "macs_per_chunk": macs,
        "cpu_mhz": _cpu_mhz(),
        "nominal_peak_gmac_per_s": 16 * _cpu_mhz() / 1000,
        "results": results,
        "streams": streams,
        "goals": goals(results),
    }
    print(table(document))
    with open(os.path.join(out_dir, "vad_bench.json"), "w") as f:
        json.dump(document, f, indent=1)
    plot(document, os.path.join(out_dir, "vad_bench.png"))
    print(f"\nwrote {os.path.join(out_dir, 'vad_bench.json')} and vad_bench.png", file=sys.stderr)


if __name__ == "__main__":
    app.run(main)
