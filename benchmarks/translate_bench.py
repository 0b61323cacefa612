"""Translation speed and memory, side by side: Hugging Face transformers (eager),
CTranslate2 (fp32, int8) and pteforge's opus_translate (portable kernels, XNNPACK), on
the same OPUS-MT en->fr checkpoint and sentences, in one run.

    ./bazelw run //benchmarks:translate_bench                  # everything (~15 min)
    ./bazelw run //benchmarks:translate_bench -- --quick       # 10 sentences, 1 thread (~2 min)

Every engine generates exactly --tokens tokens per sentence (min length = max
length): random weights rarely end a sentence, and equal work is what a speed
comparison needs. Each engine runs in its own process, so its peak RSS is its own.
Writes a table to stdout, and JSON and a PNG plot (ms per token vs source length) to
--out_dir (default: benchmarks/results in the workspace).
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
flags.DEFINE_integer("tokens", 32, "Tokens generated per sentence (forced).")
flags.DEFINE_integer("max_sentences", 60, "Sentences to translate (from the start of the set).")
flags.DEFINE_list("threads", ["1", "2"], "Thread counts to measure.")
flags.DEFINE_list("beams", ["1", "4"], "Beam widths to measure (1 = greedy).")
flags.DEFINE_list("engines", ["hf-eager", "ct2-fp32", "ct2-int8", "pteforge-xnnpack", "pteforge-xnnpack-int8",
                             "pteforge-portable"],
                  "Engines to measure.")
flags.DEFINE_integer("portable_sentences", 3, "Sentences for pteforge-portable (its kernels are slow).")
flags.DEFINE_bool("quick", False, "10 sentences, 1 thread: a fast look.")
flags.DEFINE_string("out_dir", None, "Where to write the JSON and the PNG (default: benchmarks/results).")

_RUNFILES = runfiles.Create()


def _path(label_path: str) -> str:
    return _RUNFILES.Rlocation("pteforge/" + label_path)


def _size_bytes(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def _run_engine(command: list[str]) -> tuple[list[dict], float]:
    """Runs one engine process; returns its JSON lines (stdout and stderr) and its own
    peak RSS in MB."""
    stdout, stderr = engine_process.run(command)
    records = engine_process.json_lines(stdout + "\n" + stderr)
    peak = next(r["peak_rss_mb"] for r in reversed(records) if "peak_rss_mb" in r)
    return records, peak


def _summarize(engine: str, beams: int, threads: int, records: list[dict], peak_mb: float,
               artifact_bytes: int) -> dict:
    load = next(r["load_ms"] for r in records if "load_ms" in r)
    sentences = [r for r in records if "source_tokens" in r]
    for r in sentences:  # opus_translate reports encode and decode separately
        r.setdefault("total_ms", r.get("encode_ms", 0) + r.get("decode_ms", 0))
    tokens = [r["generated_tokens"] for r in sentences]
    return {
        "engine": engine,
        "beams": beams,
        "threads": threads,
        "sentences": len(sentences),
        "ms_per_sentence": statistics.mean(r["total_ms"] for r in sentences),
        "ms_per_token": sum(r["total_ms"] for r in sentences) / max(1, sum(tokens)),
        "encode_ms": statistics.mean(r["encode_ms"] for r in sentences),
        "load_ms": load,
        "peak_rss_mb": peak_mb,
        "artifact_mb": artifact_bytes / 2**20,
        "tokens_per_sentence": [min(tokens), max(tokens)],
        "per_sentence": [{"source_tokens": r["source_tokens"], "ms_per_token": r["total_ms"] / max(1, r["generated_tokens"])}
                         for r in sentences],
    }


def _sentences_file(count: int, directory: str) -> str:
    with open(_path("benchmarks/sentences_en.txt"), encoding="utf-8") as f:
        lines = [line for line in f if line.strip()][:count]
    path = os.path.join(directory, f"sentences_{count}.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return path


def _convert_ct2(checkpoint: str, directory: str, quantization: str | None) -> str:
    import ctranslate2

    out = os.path.join(directory, f"ct2_{quantization or 'fp32'}")
    ctranslate2.converters.TransformersConverter(checkpoint).convert(out, quantization=quantization, force=True)
    return out


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    from pteforge.support.quiet import quiet_dependencies

    quiet_dependencies()
    if FLAGS.quick:
        FLAGS.max_sentences, FLAGS.threads, FLAGS.portable_sentences = 10, ["1"], 2
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    checkpoint = _path("models/opus/full_random_checkpoint")
    translate = _path("cc/tools/opus_translate")
    programs = {"pteforge-xnnpack": _path("models/opus.pte"), "pteforge-xnnpack-int8": _path("benchmarks/opus_int8.pte"),
                "pteforge-portable": _path("benchmarks/opus_portable.pte")}
    random_weights = os.path.exists(os.path.join(checkpoint, "pteforge_random_weights.json"))
    results, started = [], time.time()
    with tempfile.TemporaryDirectory() as scratch:
        sentence_files = {n: _sentences_file(n, scratch) for n in {FLAGS.max_sentences, FLAGS.portable_sentences}}
        ct2 = {}
        if any(e.startswith("ct2") for e in FLAGS.engines):
            print("converting the checkpoint for CTranslate2 (fp32, int8) ...", file=sys.stderr)
            ct2 = {"ct2-fp32": _convert_ct2(checkpoint, scratch, None), "ct2-int8": _convert_ct2(checkpoint, scratch, "int8")}
        for engine in FLAGS.engines:
            for beams in map(int, FLAGS.beams):
                for threads in map(int, FLAGS.threads):
                    count = FLAGS.portable_sentences if engine == "pteforge-portable" else FLAGS.max_sentences
                    sentences = sentence_files[count]
                    if engine == "hf-eager":
                        command = [sys.executable, _path("benchmarks/hf_worker.py"), checkpoint, sentences,
                                   str(FLAGS.tokens), str(beams), str(threads)]
                        artifact = _size_bytes(checkpoint)
                    elif engine.startswith("ct2"):
                        command = [sys.executable, _path("benchmarks/ct2_worker.py"), ct2[engine], checkpoint, sentences,
                                   str(FLAGS.tokens), str(beams), str(threads), engine.split("-")[1].replace("fp32", "float32")]
                        artifact = _size_bytes(ct2[engine])
                    else:
                        length = str(FLAGS.tokens + 1)  # with the start token
                        command = [translate, f"--model={programs[engine]}", "--stats", f"--beams={beams}",
                                   f"--threads={threads}", f"--min_length={length}", f"--max_length={length}",
                                   "--batch_size=1"]
                        with open(sentences, encoding="utf-8") as f:
                            command += [line.strip() for line in f]
                        artifact = _size_bytes(programs[engine])
                    print(f"{engine}, {beams} beam(s), {threads} thread(s), {count} sentences ...", file=sys.stderr)
                    records, peak = _run_engine(command)
                    results.append(_summarize(engine, beams, threads, records, peak, artifact))
    with open(_path("models/opus.report.json")) as f:
        memory = json.load(f)["memory"]
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["./bazelw run //benchmarks:translate_bench --"] + sys.argv[1:]),
        "machine": bench_output.machine(),
        "model": "opus-mt-en-fr architecture, " + ("UNTRAINED random weights" if random_weights else "given checkpoint"),
        "tokens_per_sentence": FLAGS.tokens,
        "note": f"every engine generates {FLAGS.tokens} tokens per sentence (min length = max length)",
        "results": results,
        "planned_memory": memory,
        "duration_s": time.time() - started,
    }
    document["targets"] = bench_output.targets(document)
    json_path = os.path.join(out_dir, "translate_bench.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=1)
    png_path = os.path.join(out_dir, "translate_bench.png")
    bench_output.plot(document, png_path)
    print(bench_output.table(document))
    print(f"\nwrote {json_path} and {png_path}")


if __name__ == "__main__":
    app.run(main)
