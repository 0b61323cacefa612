"""Soak test of the vad tool (//cc/tools:vad): hours of audio through ONE process as a live
stream, its memory watched from outside, its last segments checked against a fresh process.

    python benchmarks/soak/vad_soak.py --vad=bazel-bin/cc/tools/vad --chunks=2700000 \\
        [--json=out.json] [--sample_seconds=2] [--wav=FILE ...] [--context_loops=2] \\
        [--no-probs] [--arg=--threshold=0.6 ...] [--warmup=0.1] [--tolerance=0.1]

2,700,000 chunks of 512 samples at 16 kHz are 24 h of audio (2.76 GB of 16-bit PCM). Nothing
is written to disk: the vad tool reads raw 16-bit mono PCM from stdin as one live stream
(`vad --stdin_rate=16000`, cc/vad/run.h RunRaw: a chunk at a time, segments printed as
they are decided, no limit on the length), so a writer thread pipes a LOOP into it:
2 s of digital silence, the speech clips (default: the repository's 16 kHz test audio,
bazel-bin/tests/vad/audio/{en_us,pt,de_noisy,long,short}_16k.wav; --wav to choose) with
pauses of 0.35 to 2.4 s between them, 2 s of silence, zero-padded to whole chunks, repeated
(the last loop cut at --chunks). The same loop every time, so the audio is deterministic and
the stream is periodic: any loop boundary is a point where a fresh process could start on
the very same samples, chunk for chunk. Reader threads take the tool's stdout and stderr
(never a full pipe); every --sample_seconds the main thread reads VmRSS and VmHWM from
/proc/<pid>/status with the chunks fed and run so far (from --probs, or fed without it).

Checked (exit 0 only if all pass; 1 if one fails or the tool fails; 2 for bad arguments or
a missing binary or clip):
  (a) memory: after the warm-up (the first --warmup of the chunks run), the largest RSS is
      within --tolerance of the FIRST sample after the warm-up (not the median: growth
      shows whole however late it comes). The tool keeps no per-chunk history, so a
      24-hour stream should be flat.
  (b) the tool ran every chunk (--stats' count) and exited 0.
  (c) the last portion: from the last loop boundary that leaves at least one whole loop
      (1 to 2 loops before the end) to the end of the stream, against a FRESH process given
      the very same samples: the --context_loops (default 2) whole loops that precede the
      portion in the long run, then the portion. Its segments that start in the portion must
      equal the long run's, both offset to the portion's start, sample for sample
      (--units=samples: integers, no rounded seconds), the last one (cut at the stream's
      end) included.
      What the long run carries across the boundary:
        - the segmenter's state: the boundary is in >= 2 s of digital silence (more than
          min_silence 100 ms + 2 x speech_pad 30 ms + a chunk), so every segment before it
          is closed, padded and printed, and the segmenter is idle. The script checks that
          no segment straddles the boundary, in either run.
        - the model's state (Silero's LSTM state and 64-sample context). A live stream never
          resets it, and it does not settle in silence: measured, after 60 s of digital
          silence a stream that had heard speech still gives 0.00022 where a fresh one gives
          0.00146. So the portion ALONE in a fresh process (zero state) is NOT expected to
          match, and with the default clips it does not: 3 chunks of the portion land on
          the other side of a threshold (probabilities differ by up to 0.27) and one segment
          ends a chunk later, (48160, 93664) in the long run against (48160, 93152). That
          comparison is still run and reported, as information. After whole loops of the
          same audio, however, the state of any stream at the same point of the loop is
          nearly the same: measured on the default loop, the probabilities in the portion
          differ by at most 2e-4 from the long run's after 1 loop of context and 3e-6
          after 2. So a fresh process with that context makes the long run's decisions
          unless a probability lies within that margin of a threshold (reported below):
          a difference without such a chunk is drift in the long run (the segmenter or
          the printer keeping state they should not, sample counts going wrong over a
          long stream), not the model's memory.
      The probabilities are not required to be equal (carried state: they differ in the
      last digits). With --probs (the default) the script reports, for both fresh runs,
      how many chunks differ, the largest difference, and how many chunks land on another
      side of --threshold or neg_threshold, the only thing segments depend on (0 expected
      with the context). If (c) fails with chunks on another side, raise --context_loops;
      if none changed sides, the tool has a bug.
Also reported, not checked: whether every whole loop from the third on gives the same
segments (offset by its start) as the second: drift anywhere in the run, not only at its
end (the first loop starts from a fresh model state; it differs, as above).

Prints progress lines on stderr ("soak: 270000/2700000 chunks, 25 s, RSS 30 MB"), then a
table on stdout; --json writes everything, samples included. A rebuilt binary or model
while the soak runs (size or mtime changed) fails the soak and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_common  # noqa: E402  (next to this file)

NAME = "soak"
RATE = 16000
CHUNK = 512  # samples per chunk at 16 kHz
CHUNK_BYTES = 2 * CHUNK
DEFAULT_CLIPS = ("en_us_16k.wav", "pt_16k.wav", "de_16k_noisy.wav", "long_16k.wav", "short_16k.wav")
LEAD_S, TRAIL_S = 2.0, 2.0
GAPS_S = (0.35, 1.6, 0.8, 2.4, 1.1)


def parse_args(argv: list[str]) -> argparse.Namespace:
    root = soak_common.repo_root()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vad", default=os.path.join(root, "bazel-bin/cc/tools/vad"),
                        help="the vad binary (default: the repository's bazel-bin one)")
    parser.add_argument("--chunks", type=int, default=2700000, help="chunks of 512 samples (16 kHz) to stream")
    parser.add_argument("--sample_seconds", type=float, default=2.0, help="seconds between RSS samples")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--wav", action="append", help="a speech clip, 16-bit mono 16 kHz WAV (repeatable)")
    parser.add_argument("--probs", action=argparse.BooleanOptionalAction, default=True,
                        help="run vad with --probs: exact progress, and the probabilities compared")
    parser.add_argument("--context_loops", type=int, default=2,
                        help="whole loops the fresh process hears before the last portion (see (c))")
    parser.add_argument("--arg", action="append", default=[], help="another flag for vad, e.g. --arg=--threshold=0.6")
    parser.add_argument("--warmup", type=float, default=0.1, help="fraction of the run before the memory reference")
    parser.add_argument("--tolerance", type=float, default=0.1, help="allowed RSS growth after the warm-up (fraction)")
    args = parser.parse_args(argv)
    if args.chunks < 1:
        parser.error("--chunks must be at least 1")
    if args.sample_seconds <= 0:
        parser.error("--sample_seconds must be positive")
    if args.context_loops < 0:
        parser.error("--context_loops must be at least 0")
    if not 0 <= args.warmup < 1 or args.tolerance < 0:
        parser.error("--warmup must be in [0, 1) and --tolerance >= 0")
    for flag in args.arg:
        if flag.split("=")[0] in ("--units", "--stdin_rate", "--probs", "--stats", "--time_resolution"):
            parser.error(f"--arg={flag}: the script sets that flag itself")
    if args.wav is None:
        args.wav = [os.path.join(root, "bazel-bin/tests/vad/audio", name) for name in DEFAULT_CLIPS]
        args.wav = [path for path in args.wav if os.path.isfile(path)]
        if not args.wav:
            parser.error("no speech clips: give --wav=FILE (16-bit mono 16 kHz WAV), or build the test audio "
                         "(./bazelw build //tests/vad:audio)")
    return args


def read_clip(path: str) -> bytes:
    """A WAV's samples as raw 16-bit little-endian PCM (what vad --stdin_rate reads)."""
    try:
        with wave.open(path) as w:
            if (w.getsampwidth(), w.getnchannels(), w.getframerate()) != (2, 1, RATE):
                raise soak_common.UsageError(f"--wav={path}: expected 16-bit mono {RATE} Hz, got "
                                             f"{8 * w.getsampwidth()}-bit, {w.getnchannels()} channel(s), "
                                             f"{w.getframerate()} Hz")
            return w.readframes(w.getnframes())
    except (OSError, wave.Error, EOFError) as e:
        raise soak_common.UsageError(f"--wav={path}: {e}")


def silence(seconds: float) -> bytes:
    return bytes(2 * round(seconds * RATE))


def make_loop(clips: list[bytes]) -> bytes:
    """Silence, the clips with pauses between them, silence; whole chunks."""
    parts = [silence(LEAD_S)]
    for i, clip in enumerate(clips):
        if i:
            parts.append(silence(GAPS_S[(i - 1) % len(GAPS_S)]))
        parts.append(clip)
    parts.append(silence(TRAIL_S))
    loop = b"".join(parts)
    return loop + bytes(-len(loop) % CHUNK_BYTES)


def stream_blocks(loop: bytes, chunks: int, block_chunks: int = 64):
    """The stream of `chunks` chunks, the loop repeated, in blocks of `block_chunks`."""
    remaining = chunks * CHUNK_BYTES
    step = block_chunks * CHUNK_BYTES
    while remaining > 0:
        for start in range(0, len(loop), step):
            block = loop[start:start + min(step, remaining)]
            yield block
            remaining -= len(block)
            if remaining == 0:
                return


def vad_command(args: argparse.Namespace) -> list[str]:
    return [args.vad, f"--stdin_rate={RATE}", "--units=samples", "--stats", *(["--probs"] if args.probs else []),
            *args.arg]


def thresholds(args: argparse.Namespace) -> tuple[float, float]:
    """The run's threshold and neg_threshold (the tool's defaults unless --arg set them)."""
    values = {}
    for flag in args.arg:
        name, _, value = flag.partition("=")
        if name in ("--threshold", "--neg_threshold"):
            values[name] = float(value)
    threshold = values.get("--threshold", 0.5)
    return threshold, values.get("--neg_threshold", max(threshold - 0.15, 0.01))


class Output:
    """The vad tool's stdout as it comes: segments (all), probabilities (from chunk `keep_from`
    on only) and the number of probability lines (chunks run)."""

    def __init__(self, keep_from: int):
        self.keep_from = keep_from
        self.segments: list[tuple[int, int]] = []
        self.probabilities: list[float] = []
        self.chunks = 0
        self.bad_lines: list[str] = []

    def line(self, raw: bytes) -> None:
        if raw.startswith(b"prob "):
            if self.chunks >= self.keep_from:
                fields = raw.split()
                if int(fields[1]) != self.chunks:
                    self.bad_lines.append(raw.decode("utf-8", "replace").rstrip())
                self.probabilities.append(float(fields[2]))
            self.chunks += 1
            return
        fields = raw.split()
        try:
            start, end = (int(v) for v in fields)
            self.segments.append((start, end))
        except ValueError:
            self.bad_lines.append(raw.decode("utf-8", "replace").rstrip())

    def parse(self, data: bytes) -> "Output":
        for raw in data.splitlines():
            self.line(raw)
        return self


class LongRun:
    """One vad process fed the whole stream through a pipe."""

    def __init__(self, args: argparse.Namespace, loop: bytes, keep_from: int):
        self.output = Output(keep_from)
        self.errors: list[bytes] = []
        self.fed = 0
        self.write_error = None
        self.started = time.monotonic()
        self.process = subprocess.Popen(vad_command(args), env=soak_common.tool_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.writer = threading.Thread(target=self._write, args=(loop, args.chunks), daemon=True)
        self.writer.start()
        self.readers = [soak_common.drain(self.process.stdout, self.output.line),
                        soak_common.drain(self.process.stderr, self.errors.append)]
        self.use_probs = args.probs

    def _write(self, loop: bytes, chunks: int) -> None:
        try:
            for block in stream_blocks(loop, chunks):
                self.process.stdin.write(block)
                self.fed += len(block) // CHUNK_BYTES
            self.process.stdin.close()
        except OSError as e:  # the tool died: its exit status and stderr tell why
            self.write_error = str(e)

    def counters(self) -> dict:
        return {"fed": self.fed, "done": self.output.chunks if self.use_probs else self.fed}

    def finish(self) -> float:
        self.process.wait()
        self.writer.join()
        for reader in self.readers:
            reader.join()
        return time.monotonic() - self.started


def stats_line(stderr: str) -> dict | None:
    """vad --stats' JSON line."""
    for line in reversed(stderr.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def run_long(args: argparse.Namespace, loop: bytes, keep_from: int) -> tuple[LongRun, list[dict], float]:
    run = LongRun(args, loop, keep_from)
    progress = soak_common.Progress(NAME, args.chunks, "chunks")
    samples = soak_common.sample_until_exit(run.process, run.started, args.sample_seconds, run.counters,
                                            lambda sample: progress.update(sample, sample["done"]))
    seconds = run.finish()
    print(f"{NAME}: {run.counters()['done']}/{args.chunks} chunks, {seconds:.0f} s, exit status "
          f"{run.process.returncode}", file=sys.stderr, flush=True)
    return run, samples, seconds


def check_run(run: LongRun, chunks: int) -> dict:
    """(b): every chunk run, exit 0, nothing unexpected on stdout."""
    stderr = b"".join(run.errors).decode("utf-8", "replace")
    stats = stats_line(stderr)
    result = {"returncode": run.process.returncode, "stats": stats, "write_error": run.write_error,
              "bad_lines": run.output.bad_lines[:5]}
    problems = []
    if run.process.returncode != 0:
        problems.append(f"vad exited with {run.process.returncode}: {stderr.strip()[-500:]}")
    if not stats or stats.get("chunks") != chunks:
        problems.append(f"vad ran {stats.get('chunks') if stats else '?'} chunks, not {chunks}")
    if run.output.bad_lines:
        problems.append(f"unexpected output: {run.output.bad_lines[0]}")
    if run.write_error:
        problems.append(f"writing its stdin failed: {run.write_error}")
    result["ok"] = not problems
    if problems:
        result["reason"] = "; ".join(problems)
    return result


def from_boundary(segments: list[tuple[int, int]], chunk: int) -> tuple[list[tuple[int, int]], list]:
    """The segments that start at or after `chunk`, offset to it, and those that straddle it."""
    offset = chunk * CHUNK
    return ([(a - offset, b - offset) for a, b in segments if a >= offset],
            [s for s in segments if s[0] < offset < s[1]])


def compare_portion(args, long_output: Output, long_start: int, fresh: dict, fresh_start: int,
                    portion_chunks: int) -> dict:
    """The long run's segments from chunk `long_start` on against a fresh run's from chunk
    `fresh_start` on (its context before), both offset; the probabilities there too."""
    fresh_output = Output(fresh_start).parse(fresh["stdout"])
    mine, straddling = from_boundary(long_output.segments, long_start)
    theirs, fresh_straddling = from_boundary(fresh_output.segments, fresh_start)
    fresh_stats = stats_line(fresh["stderr"])
    result = {"context_chunks": fresh_start, "long_run_segments": len(mine), "fresh_segments": len(theirs),
              "straddling": straddling[:5], "fresh_straddling": fresh_straddling[:5],
              "fresh_returncode": fresh["returncode"], "fresh_chunks": fresh_stats.get("chunks") if fresh_stats else None,
              "fresh_seconds": round(fresh["seconds"], 3), "fresh_peak_rss_mb": fresh["peak_rss_mb"]}
    problems = []
    if fresh["returncode"] != 0 or result["fresh_chunks"] != fresh_start + portion_chunks:
        problems.append(f"the fresh process failed or ran {result['fresh_chunks']} chunks: {fresh['stderr'][-500:]}")
    if straddling or fresh_straddling:
        problems.append(f"a segment straddles the boundary: {(straddling + fresh_straddling)[0]}")
    result["identical"] = mine == theirs
    if not result["identical"]:
        result["long_run_only"] = sorted(set(mine) - set(theirs))[:10]
        result["fresh_only"] = sorted(set(theirs) - set(mine))[:10]
        problems.append(f"segments differ: long run only {result['long_run_only'][:3]}, "
                        f"fresh only {result['fresh_only'][:3]}")
    if args.probs:
        result["probabilities"] = compare_probabilities(args, long_output.probabilities, fresh_output.probabilities)
    result["ok"] = not problems
    if problems:
        result["reason"] = "; ".join(problems)
    return result


def compare_probabilities(args, ours: list[float], theirs: list[float]) -> dict:
    """How far the carried model state moves the probabilities, and whether any chunk
    lands on another side of a threshold (what segments depend on)."""
    threshold, negative = thresholds(args)

    def side(p: float) -> int:
        return 2 if p >= threshold else (0 if p < negative else 1)

    n = min(len(ours), len(theirs))
    differing = [i for i in range(n) if ours[i] != theirs[i]]
    sides = [i for i in range(n) if side(ours[i]) != side(theirs[i])]
    return {"chunks": n, "long_run_chunks": len(ours), "fresh_chunks": len(theirs), "threshold": threshold,
            "neg_threshold": negative, "differing": len(differing),
            "max_abs_difference": max((abs(ours[i] - theirs[i]) for i in differing), default=0.0),
            "last_differing_chunk": differing[-1] if differing else None,
            "other_side_of_a_threshold": len(sides), "other_side_chunks": sides[:10]}


def loop_consistency(segments: list[tuple[int, int]], loop_chunks: int, chunks: int) -> dict:
    """Whether every whole loop after the first gives the second loop's segments (offset)."""
    size = loop_chunks * CHUNK
    loops = chunks // loop_chunks
    per_loop: list[list[tuple[int, int]]] = [[] for _ in range(loops)]
    for a, b in segments:
        k = a // size
        if k < loops and b <= (k + 1) * size:
            per_loop[k].append((a - k * size, b - k * size))
    if loops < 3:
        return {"loops": loops, "compared": 0, "differing_loops": [], "ok": True}
    reference = per_loop[1]
    differing = [k for k in range(2, loops) if per_loop[k] != reference]
    return {"loops": loops, "compared": loops - 2, "segments_per_loop": len(reference),
            "first_loop_equals_second": per_loop[0] == reference, "differing_loops": differing[:10],
            "differing_count": len(differing), "ok": not differing}


def describe_probabilities(probs: dict | None) -> str:
    if not probs:
        return ""
    return (f"; probabilities {probs['differing']}/{probs['chunks']} chunks differ, max |diff| "
            f"{probs['max_abs_difference']:.3g}, {probs['other_side_of_a_threshold']} on another side of a "
            f"threshold ({probs['threshold']}, {probs['neg_threshold']:.2f})")


def report(args, seconds: float, memory: dict, checks: dict, portion: dict, alone: dict, loops: dict,
           segments: int) -> str:
    audio_s = args.chunks * CHUNK / RATE
    rows = [("chunks", str(args.chunks)), ("audio h", f"{audio_s / 3600:.2f}"), ("seconds", f"{seconds:.1f}"),
            ("chunks/s", f"{args.chunks / seconds:.0f}"), ("x real time", f"{audio_s / seconds:.0f}"),
            ("RSS first MB", soak_common.mb(memory["first_mb"])),
            ("after warm-up MB", soak_common.mb(memory.get("after_warmup_mb"))),
            ("max MB", soak_common.mb(memory["max_mb"])), ("last MB", soak_common.mb(memory["last_mb"])),
            ("growth %", "-" if memory.get("growth_pct") is None else f"{memory['growth_pct']:.1f}"),
            ("segments", str(segments)), ("last portion identical", "yes" if portion["ok"] else "no")]
    text = [soak_common.table(rows), ""]
    text.append(f"last portion: chunks {portion['boundary_chunk']}..{args.chunks} ({portion['portion_seconds']:.1f} s, "
                f"{portion['long_run_segments']} segments in the long run)")
    text.append(f"  fresh process, {args.context_loops} loop(s) of context first: {portion['fresh_segments']} segments, "
                f"{'identical' if portion['identical'] else 'DIFFERENT'}" + describe_probabilities(portion.get("probabilities")))
    if alone is not portion:
        text.append(f"  fresh process, the portion alone (informational): {alone['fresh_segments']} segments, "
                    f"{'identical' if alone['identical'] else 'different'}"
                    + ("" if alone["identical"] else f" (long run only {alone['long_run_only'][:3]}, "
                                                     f"fresh only {alone['fresh_only'][:3]})")
                    + describe_probabilities(alone.get("probabilities")))
    if loops["compared"]:
        text.append(f"loops 3..{loops['loops']} against loop 2: {loops['differing_count']} of {loops['compared']} "
                    f"differ; loop 1 (fresh state) {'equal' if loops['first_loop_equals_second'] else 'differs'}")
    stats = checks.get("stats") or {}
    if stats:
        text.append(f"vad --stats: {stats.get('us_per_chunk', 0):.1f} us per chunk in the model, real-time factor "
                    f"{stats.get('real_time_factor', 0):.5f}")
    text += soak_common.check_lines((
        ("(a) RSS flat after warm-up", memory, f" [warm-up by {memory['basis']}, reference = first sample after it]"),
        ("(b) every chunk run, exit 0", checks, ""),
        ("(c) last portion = fresh process with context", portion, ""),
    ))
    return "\n".join(text)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        args.vad = soak_common.check_binary(args.vad, "//cc/tools:vad")
        loop = make_loop([read_clip(path) for path in args.wav])
    except soak_common.UsageError as e:
        print(f"vad_soak: error: {e}", file=sys.stderr)
        return 2
    loop_chunks = len(loop) // CHUNK_BYTES
    loops_needed = args.context_loops + 2
    if args.chunks < loops_needed * loop_chunks:
        print(f"vad_soak: error: --chunks={args.chunks}: at least {loops_needed} loops of the audio "
              f"({loops_needed * loop_chunks} chunks) are needed: the last portion (1 to 2 loops) and "
              f"--context_loops={args.context_loops} before it", file=sys.stderr)
        return 2
    start_chunk = (args.chunks // loop_chunks - 1) * loop_chunks
    portion_chunks = args.chunks - start_chunk
    context_chunks = args.context_loops * loop_chunks
    stamp = soak_common.file_stamps(args.vad)
    machine = soak_common.machine()
    print(f"{NAME}: {' '.join(vad_command(args))}: {args.chunks} chunks ({args.chunks * CHUNK / RATE / 3600:.2f} h), "
          f"a loop of {loop_chunks} chunks ({loop_chunks * CHUNK / RATE:.1f} s) from {len(args.wav)} clip(s); "
          f"load average {machine['load_average'][0]:.2f} on {machine['cores']} cores", file=sys.stderr, flush=True)
    run, samples, seconds = run_long(args, loop, start_chunk)
    memory = soak_common.flatness(samples, "done", args.chunks, args.warmup, args.tolerance)
    checks = check_run(run, args.chunks)
    # The same samples as the long run's tail: the stream is periodic from chunk 0 and
    # start_chunk - context_chunks is a loop boundary.
    with_context = soak_common.run_once(vad_command(args), b"".join(stream_blocks(loop, context_chunks + portion_chunks)))
    portion = compare_portion(args, run.output, start_chunk, with_context, context_chunks, portion_chunks)
    portion.update(boundary_chunk=start_chunk, portion_chunks=portion_chunks,
                   portion_seconds=portion_chunks * CHUNK / RATE, context_loops=args.context_loops)
    alone = portion
    if args.context_loops:
        alone = compare_portion(args, run.output, start_chunk,
                                soak_common.run_once(vad_command(args), b"".join(stream_blocks(loop, portion_chunks))),
                                0, portion_chunks)
    loops = loop_consistency(run.output.segments, loop_chunks, args.chunks)
    rebuilt = soak_common.file_stamps(args.vad) != stamp
    text = report(args, seconds, memory, checks, portion, alone, loops, len(run.output.segments))
    if rebuilt:
        text += "\nWARNING: the vad binary or its model changed while the soak ran: (c) compares different builds"
    print(text)
    ok = memory["ok"] and checks["ok"] and portion["ok"] and not rebuilt
    soak_common.write_json(args.json, {
        "tool": "vad", "command": vad_command(args), "args": vars(args), "machine": machine,
        "load_average_end": os.getloadavg(), "binary_rebuilt_during_run": rebuilt,
        "loop": {"chunks": loop_chunks, "seconds": loop_chunks * CHUNK / RATE, "clips": args.wav,
                 "lead_s": LEAD_S, "trail_s": TRAIL_S, "gaps_s": GAPS_S},
        "chunks": args.chunks, "audio_hours": args.chunks * CHUNK / RATE / 3600, "seconds": round(seconds, 3),
        "chunks_per_s": args.chunks / seconds, "segments": len(run.output.segments),
        "checks": {"rss_flat": memory, "ran_all": checks, "last_portion_identical": portion},
        "portion_alone_from_fresh_state": alone,
        "loop_consistency": loops, "ok": ok, "samples": samples})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
