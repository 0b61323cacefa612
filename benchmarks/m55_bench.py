"""The Cortex-M55 programs on ExecuTorch's portable kernels against CMSIS-NN (Helium), in
one run, on the emulated MPS3 AN547 (qemu-system-arm -icount shift=0, so the image's
clock counts instructions):

  Silero VAD 16 kHz   float32 and int8, instructions per 32 ms chunk over a speech file,
                      the segments each prints, flash, SRAM and stack against the board
                      profile the image is checked for (its fit table);
  tiny Llama          prefill and decode_step, instructions per call, greedy ids;
  the cache model     its replay (set_cache / get_cache): it has no operator CMSIS-NN
                      covers, so backend cortex_m exports the same program.

And int8 against float32 on the VAD benchmark's speech (--minutes of espeak-ng speech over
noise, speech_audio.py, the same audio as //benchmarks:vad_bench): the two CMSIS-NN
programs' segments through the x86_64 vad tool (pteforge's reference kernels, which the
Cortex-M55 matches within 1e-4: //tests/vad:int8_cortex_m55_test), every boundary that
differs listed with its position and both programs' probabilities there.

    ./bazelw run //benchmarks:m55_bench                 # needs PTEFORGE_EXECUTORCH_SRC and
                                                        # PTEFORGE_CMSIS_NN_SRC

Instructions are what qemu counts, not cycles: a Cortex-M55 retires about one scalar
instruction a cycle, and a Helium instruction on 128 bits takes two beats. The time at
160 and 400 MHz is instructions / clock, an estimate at one instruction a cycle; a real
board's memory waits come on top. Writes a table to stdout and m55_bench.json to
--out_dir (default benchmarks/results).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

from absl import app, flags
from runfiles import runfiles

from benchmarks import bench_output, speech_audio

FLAGS = flags.FLAGS
flags.DEFINE_string("audio", "en_us_16k.wav", "A 16 kHz test file of //tests/vad:audio to stream.")
flags.DEFINE_float("minutes", 10.0, "Minutes of speech for the int8 against float32 comparison.")
flags.DEFINE_string("out_dir", None, "Where to write the JSON (default: benchmarks/results).")

_RUNFILES = runfiles.Create()
CHUNK_MS = 32.0
CLOCKS_MHZ = (160, 400)
# (row, image in //cc/tools, kernels)
VAD_IMAGES = [
    ("Silero VAD float32", "vad_portable_cortex_m55", "portable"),
    ("Silero VAD float32", "vad_cortex_m55", "CMSIS-NN"),
    ("Silero VAD int8", "vad_int8_portable_cortex_m55", "portable"),
    ("Silero VAD int8", "vad_int8_cortex_m55", "CMSIS-NN"),
]
LLM_IMAGES = [("tiny Llama", "generate_cortex_m55_image", "portable"),
              ("tiny Llama", "generate_cmsis_nn_cortex_m55_image", "CMSIS-NN")]
PROMPT = [5, 17, 230, 41, 99, 7]
NEW_TOKENS = 16


def _path(runfiles_path: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{runfiles_path}")


def run_image(elf: str, *args: str) -> str:
    """The image's output under qemu, its clock counting instructions."""
    command = [_path("toolchains/run_on_target.sh"), "cortex_m55", elf, *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600,
                            env=dict(os.environ, PTEFORGE_QEMU_ICOUNT="0", PTEFORGE_TARGET_TIMEOUT="3500"))
    if result.returncode != 0:
        sys.exit(f"m55_bench: {' '.join(command)} failed ({result.returncode}):\n{result.stderr}{result.stdout}")
    return result.stdout + result.stderr


def fit(table_path: str) -> dict:
    """Board, flash and SRAM used from an image's fit table (cc/embedded/fit_check.py)."""
    with open(table_path) as f:
        text = f.read()
    board = re.search(r"on (\S+) \(", text).group(1)
    used = {}
    for region in ("flash", "SRAM", "DDR"):
        found = re.search(rf"^  {region}: (.+?) of (.+?) \(", text, re.M)
        if found:
            used[region] = f"{found.group(1)} of {found.group(2)}"
    return {"board": board, **used}


def stack_peak(output: str) -> int | None:
    found = re.search(r"stack peak (\d+) of", output)
    return int(found.group(1)) if found else None


def vad_rows(audio: str) -> list[dict]:
    rows = []
    for model, image, kernels in VAD_IMAGES:
        output = run_image(_path(f"cc/tools/{image}.elf"), f"--input={audio}")
        timing = re.search(r"timing: (\d+) chunks, (\d+) ns in the model, (\d+) ns per chunk", output)
        per_chunk = int(timing.group(3))
        rows.append({
            "model": model, "kernels": kernels, "image": f"//cc/tools:{image}", "chunks": int(timing.group(1)),
            "instructions_per_call": per_chunk, "call": "32 ms chunk",
            "realtime_estimate": {f"{mhz} MHz": {"ms_per_chunk": per_chunk / (mhz * 1e3),
                                                 "x_realtime": CHUNK_MS / (per_chunk / (mhz * 1e3))}
                                  for mhz in CLOCKS_MHZ},
            "segments": [line for line in output.splitlines() if re.fullmatch(r"[\d.]+ [\d.]+", line)],
            "stack_peak_bytes": stack_peak(output),
            "fit": fit(_path(f"cc/tools/{image}.fit.txt")),
        })
    return rows


def llm_rows(scratch: str) -> list[dict]:
    prompt = os.path.join(scratch, "prompt.txt")
    with open(prompt, "w") as f:
        f.write(" ".join(map(str, PROMPT)) + "\n")
    rows = []
    for model, image, kernels in LLM_IMAGES:
        output = run_image(_path(f"tests/llm/{image}.elf"), f"--input={prompt}", "--greedy",
                           f"--max_new_tokens={NEW_TOKENS}")
        clock = re.search(r"prefill (\d+) ms, first token (\d+) ms, (\d+) decode steps (\d+) ms", output)
        steps = int(clock.group(3))
        ids = re.search(r"^ids: (.*)$", output, re.M).group(1)
        # The clock is in ms of 1 ns instructions: ms * 1e6 instructions.
        rows.append({"model": model, "kernels": kernels, "image": f"//tests/llm:{image}",
                     "prefill_instructions": int(clock.group(1)) * 1_000_000,
                     "instructions_per_call": int(clock.group(4)) * 1_000_000 // max(steps, 1),
                     "call": "decode_step", "ids": ids, "stack_peak_bytes": stack_peak(output),
                     "fit": fit(_path(f"tests/llm/{image}.fit.txt"))})
    return rows


def cache_rows() -> list[dict]:
    image = "replay_cache_model_cortex_m55_image"
    output = run_image(_path(f"tests/replay/{image}.elf"))
    replayed = re.search(r"replayed (\d+) calls", output)
    took = re.search(r"replay took ([\d.]+) ms", output)
    calls = int(replayed.group(1))
    return [{"model": "cache model", "kernels": "portable (no operator CMSIS-NN covers)",
             "image": f"//tests/replay:{image}", "call": "set_cache / get_cache",
             "instructions_per_call": int(float(took.group(1)) * 1e6 / calls),
             "stack_peak_bytes": stack_peak(output), "fit": fit(_path(f"tests/replay/{image}.fit.txt"))}]


def vad_probabilities(program: str, audio: str) -> tuple[list[float], list[list[int]]]:
    """Every chunk's probability and the segments (in samples), from the x86_64 vad tool."""
    command = [_path("cc/tools/vad"), f"--model={_path(f'models/silero_vad/{program}.pte')}", "--threads=1",
               "--probs", "--units=samples", audio]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=True)
    lines = [line.split() for line in result.stdout.splitlines()]
    return ([float(fields[2]) for fields in lines if fields[0] == "prob"],
            [[int(fields[0]), int(fields[1])] for fields in lines if fields[0] != "prob"])


def int8_against_float32(scratch: str) -> dict:
    """The int8 CMSIS-NN program's segment boundaries against the float32 one's."""
    audio = os.path.join(scratch, "speech.wav")
    seconds = speech_audio.make_speech(audio, 60 * FLAGS.minutes)
    float_probs, float_segments = vad_probabilities("silero_vad_16k_cmsis_nn", audio)
    int8_probs, int8_segments = vad_probabilities("silero_vad_16k_int8_cmsis_nn", audio)
    boundaries = [b for segment in float_segments for b in segment]
    int8_boundaries = [b for segment in int8_segments for b in segment]
    differing = []
    if len(boundaries) == len(int8_boundaries):
        for index, (a, b) in enumerate(zip(boundaries, int8_boundaries)):
            if a != b:
                chunk = min(a, b) // 512
                differing.append({"boundary": index, "float32_sample": a, "int8_sample": b,
                                  "chunks_apart": abs(a - b) / 512,
                                  "probabilities_float32_int8": [[float_probs[c], int8_probs[c]]
                                                                 for c in range(chunk, chunk + abs(a - b) // 512 + 1)
                                                                 if c < len(float_probs)]})
    return {"audio_seconds": seconds, "chunks": len(float_probs), "boundaries": len(boundaries),
            "segments_float32": len(float_segments), "segments_int8": len(int8_segments),
            "same_segment_count": len(boundaries) == len(int8_boundaries), "differing": differing,
            "max_probability_difference": max(abs(a - b) for a, b in zip(float_probs, int8_probs))}


def table(document: dict) -> str:
    lines = [f"Cortex-M55 (qemu-system-arm -M mps3-an547 -icount shift=0); {document['date']}",
             f"host: {document['machine']['cpu']}", "",
             f"{'model':<20} {'kernels':<10} {'per call':<12} {'instructions':>13} "
             f"{'x realtime @160/400 MHz':>24}  {'flash / SRAM':<32} {'stack':>6}"]
    for row in document["results"]:
        realtime = row.get("realtime_estimate")
        speed = (f"{realtime['160 MHz']['x_realtime']:.1f}x / {realtime['400 MHz']['x_realtime']:.1f}x"
                 if realtime else "")
        memory = f"{row['fit'].get('flash', row['fit'].get('DDR', ''))} / {row['fit'].get('SRAM', '')}"
        lines.append(f"{row['model']:<20} {row['kernels'][:10]:<10} {row['call']:<12} "
                     f"{row['instructions_per_call'] / 1e6:>11.3f} M {speed:>24}  {memory:<32} "
                     f"{row['stack_peak_bytes'] or 0:>6}")
    lines.append("")
    for pair in document["speedups"]:
        lines.append(f"{pair['model']}: CMSIS-NN takes {pair['ratio']:.2f}x the portable kernels' instructions")
    check = document["int8_against_float32"]
    lines += ["", f"int8 against float32 (CMSIS-NN programs), {check['audio_seconds'] / 60:.1f} min of speech, "
                  f"{check['chunks']} chunks: {check['segments_int8']} against {check['segments_float32']} segments, "
                  f"{len(check['differing'])} of {check['boundaries']} boundaries differ; max |p int8 - p float32| "
                  f"{check['max_probability_difference']:.4f}"]
    for d in check["differing"]:
        lines.append(f"  boundary {d['boundary']}: float32 at sample {d['float32_sample']}, int8 at {d['int8_sample']} "
                     f"({d['chunks_apart']:.0f} chunks); p float32 / int8: "
                     + ", ".join(f"{a:.3f}/{b:.3f}" for a, b in d["probabilities_float32_int8"]))
    return "\n".join(lines)


def speedups(rows: list[dict]) -> list[dict]:
    pairs = []
    for model in sorted({row["model"] for row in rows}):
        portable = next((r for r in rows if r["model"] == model and r["kernels"] == "portable"), None)
        cmsis = next((r for r in rows if r["model"] == model and r["kernels"] == "CMSIS-NN"), None)
        if portable and cmsis:
            pairs.append({"model": model, "ratio": cmsis["instructions_per_call"] / portable["instructions_per_call"]})
    return pairs


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    audio = _path(f"tests/vad/audio/{FLAGS.audio}")
    with tempfile.TemporaryDirectory() as scratch:
        rows = vad_rows(audio) + llm_rows(scratch) + cache_rows()
        check = int8_against_float32(scratch)
    document = {
        "benchmark": "m55_bench", "date": datetime.datetime.now().isoformat(timespec="minutes"),
        "machine": bench_output.machine(), "audio": FLAGS.audio,
        "command": " ".join(["./bazelw run //benchmarks:m55_bench --"] + sys.argv[1:]), "results": rows,
        "speedups": speedups(rows), "int8_against_float32": check,
    }
    print(table(document))
    out_dir = FLAGS.out_dir or os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "m55_bench.json"), "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    app.run(main)
