"""Soak test of the translate tool (//cc/tools:translate): many sentences through ONE
process, its memory watched from outside, its last answers checked against a fresh process.

    python benchmarks/soak/translate_soak.py --translate=bazel-bin/cc/tools/translate \\
        --sentences=100000 --workers=2 [--batch=1000] [--sample_seconds=2] [--json=out.json] \\
        [--corpus=FILE ...] [--arg=--beams=2 ...] [--warmup=0.1] [--tolerance=0.1]

Input: --sentences lines made from the corpus (default models/bergamot/corpus/sentences_en.txt
and benchmarks/sentences_en.txt), deterministic and varied: pass k over the corpus uses its
lines as they are (k % 4 == 0), joined in pairs (1; some then exceed the model's source
length and are translated in pieces), numbered ("Note 1234: ...", 2), or permuted with a
numbered time appended (3). They go to one `translate --quiet --workers=N` on stdin from a
writer thread while reader threads take its stdout and stderr, so neither side can block on
a full pipe. Every --sample_seconds the main thread reads VmRSS and VmHWM from
/proc/<pid>/status, with the time and the sentences fed and translated so far.

Checked (exit 0 only if all pass; 1 if one fails or the tool fails; 2 for bad arguments or
a missing binary or corpus):
  (a) memory: after the warm-up (the first --warmup of the sentences translated), the
      largest RSS is within --tolerance of the FIRST sample after the warm-up (not the
      median: growth shows whole however late it comes). A leak per sentence or per batch
      shows as growth. The translate tool streams stdin in blocks of 4,096 lines, each
      translated (sorted by length inside it) and printed before the next is read, so
      sentences are "done" as blocks come out. (A tool that read all of stdin first
      would have none done until the end: the warm-up is then the first --warmup of the
      run's time instead; the JSON's checks.rss_flat.basis says which was used.) Within a
      block RSS follows the length being translated (XNNPACK's working memory follows
      the largest shapes seen; with --workers > 1 every delegate call has its own
      workspace). To tell length from
      volume or a leak, the script also runs a fresh process on the --batch longest
      sentences and reports its peak RSS (wait4's ru_maxrss) next to the long run's
      (VmHWM): that peak is what the longest shapes cost; the long run's peak above it
      is the held input and output, plus any leak. Informational, not a check.
  (b) the outputs of the LAST --batch sentences equal, byte for byte, a FRESH process's
      outputs for those sentences alone (same flags): nothing that accumulates in a long
      run (caches, buffers, the shortlist union of a batch, the worker split) changes a
      translation. Exact for greedy decoding (the Bergamot model's default, 1 beam): each
      row keeps its own sentence's shortlist whatever the batch (cc/seq2seq/
      bergamot_model.h). With --arg=--beams=N the batch's longest source sets the length
      limit (cc/seq2seq/translation_model.h), so a different batch can legitimately
      change a long translation there.
  (c) every input line got exactly one output line, none empty, the tool exited 0 and
      reported no failed line on stderr.

Prints progress lines on stderr ("soak: 20000/100000 sentences, 61 s, RSS 212 MB"), then a
table on stdout; --json writes everything, samples included. If the binary or its default
model (in its runfiles) is rebuilt while the soak runs (size or mtime changed), the soak
fails and says so.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_common  # noqa: E402  (next to this file)

NAME = "soak"


def parse_args(argv: list[str]) -> argparse.Namespace:
    root = soak_common.repo_root()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--translate", default=os.path.join(root, "bazel-bin/cc/tools/translate"),
                        help="the translate binary (default: the repository's bazel-bin one)")
    parser.add_argument("--sentences", type=int, default=100000, help="sentences through the one process")
    parser.add_argument("--workers", type=int, default=2, help="translate --workers")
    parser.add_argument("--batch", type=int, default=1000, help="last sentences compared with a fresh process")
    parser.add_argument("--sample_seconds", type=float, default=2.0, help="seconds between RSS samples")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--corpus", action="append", help="text file, one sentence a line (repeatable)")
    parser.add_argument("--arg", action="append", default=[], help="another flag for translate, e.g. --arg=--beams=2")
    parser.add_argument("--warmup", type=float, default=0.1, help="fraction of the run before the memory reference")
    parser.add_argument("--tolerance", type=float, default=0.1, help="allowed RSS growth after the warm-up (fraction)")
    args = parser.parse_args(argv)
    if args.sentences < 1:
        parser.error("--sentences must be at least 1")
    if not 1 <= args.workers <= 64:
        parser.error("--workers must be between 1 and 64")
    if not 1 <= args.batch <= args.sentences:
        parser.error("--batch must be between 1 and --sentences")
    if args.sample_seconds <= 0:
        parser.error("--sample_seconds must be positive")
    if not 0 <= args.warmup < 1 or args.tolerance < 0:
        parser.error("--warmup must be in [0, 1) and --tolerance >= 0")
    if args.corpus is None:
        args.corpus = [os.path.join(root, "models/bergamot/corpus/sentences_en.txt"),
                       os.path.join(root, "benchmarks/sentences_en.txt")]
    return args


def read_corpus(paths: list[str]) -> list[str]:
    lines = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                lines += [" ".join(line.split()) for line in f if line.strip()]
        except OSError as e:
            raise soak_common.UsageError(f"--corpus={path}: {e.strerror}")
    if not lines:
        raise soak_common.UsageError("the corpus has no sentences")
    return lines


def make_sentences(lines: list[str], count: int) -> list[str]:
    """`count` sentences from the corpus lines, deterministic, varied pass by pass."""
    n, sentences = len(lines), []
    for i in range(count):
        rounds, j = divmod(i, n)
        kind = rounds % 4
        if kind == 0:
            sentences.append(lines[j])
        elif kind == 1:
            sentences.append(f"{lines[j]} {lines[(7 * j + rounds) % n]}")
        elif kind == 2:
            sentences.append(f"Note {i}: {lines[j]}")
        else:
            sentences.append(f"{lines[(37 * j + rounds) % n]} It was {i % 12 + 1}:{i % 60:02d}.")
    return sentences


def command(args: argparse.Namespace) -> list[str]:
    return [args.translate, "--quiet", f"--workers={args.workers}", *args.arg]


class LongRun:
    """One translate process fed all the sentences; its output lines and stderr collected."""

    def __init__(self, args: argparse.Namespace, sentences: list[str]):
        self.sentences = sentences
        self.outputs: list[bytes] = []
        self.errors: list[bytes] = []
        self.fed = 0
        self.fed_s = None        # when stdin was closed
        self.first_output_s = None
        self.write_error = None
        self.started = time.monotonic()
        self.process = subprocess.Popen(command(args), env=soak_common.tool_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.writer = threading.Thread(target=self._write, daemon=True)
        self.writer.start()
        self.readers = [soak_common.drain(self.process.stdout, self._output),
                        soak_common.drain(self.process.stderr, self.errors.append)]

    def _write(self, block: int = 256) -> None:
        try:
            for start in range(0, len(self.sentences), block):
                part = self.sentences[start:start + block]
                self.process.stdin.write(("\n".join(part) + "\n").encode("utf-8"))
                self.fed += len(part)
            self.process.stdin.close()
        except OSError as e:  # the tool died: its exit status and stderr tell why
            self.write_error = str(e)
        self.fed_s = time.monotonic() - self.started

    def _output(self, line: bytes) -> None:
        if self.first_output_s is None:
            self.first_output_s = time.monotonic() - self.started
        self.outputs.append(line)

    def counters(self) -> dict:
        return {"fed": self.fed, "done": len(self.outputs)}

    def finish(self) -> float:
        self.process.wait()
        self.writer.join()
        for reader in self.readers:
            reader.join()
        return time.monotonic() - self.started


def run_long(args: argparse.Namespace, sentences: list[str]) -> tuple[LongRun, list[dict], float]:
    run = LongRun(args, sentences)
    progress = soak_common.Progress(NAME, len(sentences), "sentences")
    announced = False

    def on_sample(sample: dict) -> None:
        nonlocal announced
        if run.fed_s is not None and not announced:
            announced = True
            print(f"{NAME}: all {len(sentences)} sentences fed in {run.fed_s:.1f} s", file=sys.stderr, flush=True)
        note = " (translate prints nothing until it has translated all its input)" if sample["done"] == 0 else ""
        progress.update(sample, sample["done"], note)

    samples = soak_common.sample_until_exit(run.process, run.started, args.sample_seconds, run.counters, on_sample)
    seconds = run.finish()
    print(f"{NAME}: {len(run.outputs)}/{len(sentences)} sentences, {seconds:.0f} s, exit status "
          f"{run.process.returncode}", file=sys.stderr, flush=True)
    return run, samples, seconds


def run_fresh(args: argparse.Namespace, batch: list[str]) -> dict:
    """A new translate process (same flags) on `batch` alone."""
    return soak_common.run_once(command(args), ("\n".join(batch) + "\n").encode("utf-8"))


def longest(sentences: list[str], count: int) -> list[str]:
    """The `count` longest sentences (by characters; first of equals first), in input order."""
    chosen = sorted(range(len(sentences)), key=lambda i: (-len(sentences[i]), i))[:count]
    return [sentences[i] for i in sorted(chosen)]


def compare_last_batch(run: LongRun, fresh: dict, batch: int) -> dict:
    """(b): the long run's last `batch` output lines against the fresh process's, bytes."""
    n = len(run.sentences)
    ours = b"".join(run.outputs[n - batch:n]) if len(run.outputs) == n else None
    result = {"sentences": batch, "fresh_seconds": round(fresh["seconds"], 3), "fresh_returncode": fresh["returncode"],
              "fresh_peak_rss_mb": fresh["peak_rss_mb"]}
    if ours is None:
        return {**result, "ok": False, "reason": "the long run's output does not have one line per input"}
    if fresh["returncode"] != 0:
        return {**result, "ok": False, "reason": f"the fresh process failed: {fresh['stderr'][-500:]}"}
    identical = ours == fresh["stdout"]
    result.update(ok=identical, identical=identical)
    if not identical:
        theirs = fresh["stdout"].splitlines(keepends=True)
        mine = run.outputs[n - batch:n]
        differing = [i for i in range(max(len(mine), len(theirs)))
                     if i >= len(mine) or i >= len(theirs) or mine[i] != theirs[i]]
        result["differing_lines"] = len(differing)
        result["examples"] = [{"input_line": n - batch + i + 1, "input": run.sentences[n - batch + i],
                               "long_run": mine[i].decode("utf-8", "replace") if i < len(mine) else None,
                               "fresh": theirs[i].decode("utf-8", "replace") if i < len(theirs) else None}
                              for i in differing[:5]]
        result["reason"] = f"{len(differing)} of {batch} lines differ"
    return result


def check_lines(run: LongRun) -> dict:
    """(c): one output line per input line, none empty, exit 0, no failed line reported."""
    n = len(run.sentences)
    empty = [i + 1 for i, line in enumerate(run.outputs) if line.strip() == b""]
    failed = [line.decode("utf-8", "replace").rstrip() for line in run.errors if b"error" in line or b": line " in line]
    result = {"inputs": n, "outputs": len(run.outputs), "empty_outputs": len(empty), "first_empty": empty[:5],
              "returncode": run.process.returncode, "stderr_lines": len(run.errors), "failed_lines": failed[:5],
              "write_error": run.write_error}
    problems = []
    if len(run.outputs) != n:
        problems.append(f"{len(run.outputs)} output lines for {n} inputs")
    if empty:
        problems.append(f"{len(empty)} empty outputs (first at line {empty[0]})")
    if run.process.returncode != 0:
        tail = b"".join(run.errors[-5:]).decode("utf-8", "replace").strip()
        problems.append(f"translate exited with {run.process.returncode}: {tail}")
    if failed:
        problems.append(f"translate reported failures: {failed[0]}")
    if run.write_error:
        problems.append(f"writing its stdin failed: {run.write_error}")
    result["ok"] = not problems
    if problems:
        result["reason"] = "; ".join(problems)
    return result


def report(args, run: LongRun, seconds: float, memory: dict, last: dict, lines: dict, peaks: dict) -> str:
    n = len(run.sentences)
    rows = [("sentences", str(n)), ("workers", str(args.workers)), ("seconds", f"{seconds:.1f}"),
            ("sentences/s", f"{n / seconds:.1f}"), ("RSS first MB", soak_common.mb(memory["first_mb"])),
            ("after warm-up MB", soak_common.mb(memory.get("after_warmup_mb"))),
            ("max MB", soak_common.mb(memory["max_mb"])), ("last MB", soak_common.mb(memory["last_mb"])),
            ("growth %", "-" if memory.get("growth_pct") is None else f"{memory['growth_pct']:.1f}"),
            ("last batch identical", "yes" if last.get("identical") else "no"),
            ("one line each", "yes" if lines["ok"] else "no")]
    text = [soak_common.table(rows), ""]
    streaming = run.first_output_s is not None and run.fed_s is not None and run.first_output_s < run.fed_s
    text.append(f"input fed in {run.fed_s:.1f} s; first output at "
                + (f"{run.first_output_s:.1f} s" if run.first_output_s is not None else "never")
                + ("" if streaming else " (translate holds all input and prints at the end)"))
    text.append(f"peak RSS: long run {soak_common.mb(peaks['long_run_mb'])} MB; fresh process on the last batch "
                f"{soak_common.mb(peaks['last_batch_fresh_mb'])} MB, on the {args.batch} longest sentences "
                f"{soak_common.mb(peaks['longest_batch_fresh_mb'])} MB")
    text += soak_common.check_lines((
        ("(a) RSS flat after warm-up", memory, f" [warm-up by {memory['basis']}, reference = first sample after it]"),
        ("(b) last batch = fresh process", last, ""),
        ("(c) one output line per input", lines, ""),
    ))
    return "\n".join(text)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        args.translate = soak_common.check_binary(args.translate, "//cc/tools:translate")
        sentences = make_sentences(read_corpus(args.corpus), args.sentences)
    except soak_common.UsageError as e:
        print(f"translate_soak: error: {e}", file=sys.stderr)
        return 2
    stamp = soak_common.file_stamps(args.translate)
    machine = soak_common.machine()
    print(f"{NAME}: {' '.join(command(args))} on {args.sentences} sentences; load average "
          f"{machine['load_average'][0]:.2f} on {machine['cores']} cores", file=sys.stderr, flush=True)
    run, samples, seconds = run_long(args, sentences)
    memory = soak_common.flatness(samples, "done", len(sentences), args.warmup, args.tolerance)
    lines = check_lines(run)
    fresh = run_fresh(args, sentences[-args.batch:])
    last = compare_last_batch(run, fresh, args.batch)
    longest_run = run_fresh(args, longest(sentences, args.batch))
    peaks = {"long_run_mb": memory["peak_hwm_mb"], "last_batch_fresh_mb": fresh["peak_rss_mb"],
             "longest_batch_fresh_mb": longest_run["peak_rss_mb"],
             "longest_batch_fresh_returncode": longest_run["returncode"]}
    if memory["peak_hwm_mb"] is not None:
        peaks["long_run_above_longest_batch_mb"] = memory["peak_hwm_mb"] - longest_run["peak_rss_mb"]
    rebuilt = soak_common.file_stamps(args.translate) != stamp
    text = report(args, run, seconds, memory, last, lines, peaks)
    if rebuilt:
        text += "\nWARNING: the translate binary or its model changed while the soak ran: (b) compares different builds"
    print(text)
    ok = memory["ok"] and last["ok"] and lines["ok"] and not rebuilt
    soak_common.write_json(args.json, {
        "tool": "translate", "command": command(args), "args": vars(args), "machine": machine,
        "load_average_end": os.getloadavg(), "binary_rebuilt_during_run": rebuilt,
        "sentences": len(sentences), "seconds": round(seconds, 3), "sentences_per_s": len(sentences) / seconds,
        "fed_s": run.fed_s, "first_output_s": run.first_output_s,
        "peak_rss": peaks,
        "checks": {"rss_flat": memory, "last_batch_identical": last, "one_line_each": lines}, "ok": ok,
        "samples": samples})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
