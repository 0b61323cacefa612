"""The benchmarks' outputs: the machine, a table, the targets' ratios, and a plot."""

from __future__ import annotations

import os
import platform
import statistics


# The CPU features that pick kernels here (XNNPACK's, llama.cpp's): the machine class
# changes from day to day on these VMs.
_SIMD_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "avx512_bf16", "avx512_fp16",
               "amx_int8")


def machine() -> dict:
    """What the benchmark ran on: the CPU (its name is often masked on a VM, so also its
    family/model/stepping), the flags that pick kernels, and the topology that decides
    what a second thread gains (hyperthread siblings share a core; the L3 says the part)."""
    cpu, flags, cpu_id = platform.processor(), [], None
    try:
        with open("/proc/cpuinfo") as f:
            fields = dict(line.split(":", 1) for line in f.read().split("\n\n")[0].splitlines() if ":" in line)
        fields = {key.strip(): value.strip() for key, value in fields.items()}
        cpu = fields.get("model name", cpu)
        flags = [flag for flag in _SIMD_FLAGS if flag in fields.get("flags", "").split()]
        cpu_id = (f"family {fields['cpu family']} model {fields.get('model')} stepping {fields.get('stepping')}"
                  if "cpu family" in fields else  # Arm: who made the core, and which
                  f"implementer {fields.get('CPU implementer')} part {fields.get('CPU part')}")
    except OSError:
        pass
    return {"cpu": cpu, "cpu_id": cpu_id, "cpu_flags": flags, "cores": os.cpu_count(),
            "threads_per_core": _threads_per_core(), "l3_cache": _read("/sys/devices/system/cpu/cpu0/cache/index3/size"),
            "python": platform.python_version(), "system": platform.platform()}


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return None


def _threads_per_core() -> int | None:
    """How many logical CPUs share cpu0's core (1: none is a hyperthread sibling)."""
    siblings = _read("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
    if not siblings:
        return None
    count = 0
    for part in siblings.split(","):
        low, _, high = part.partition("-")
        count += int(high or low) - int(low) + 1
    return count


def median_run(measured: list[tuple[list, dict]]) -> tuple[list, dict]:
    """One row from a row's runs: each rate and time is the median of the runs, the peak
    RSS the largest; the output (tokens) and anything else are the first run's."""
    tokens, first = measured[0]
    stats = dict(first)
    for key, value in first.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values = [s[key] for _, s in measured if isinstance(s.get(key), (int, float))]
            stats[key] = max(values) if key == "peak_rss_mb" else statistics.median(values)
    return tokens, stats


def _find(results: list[dict], engine: str, beams: int, threads: int) -> dict | None:
    return next((r for r in results if (r["engine"], r["beams"], r["threads"]) == (engine, beams, threads)), None)


def targets(document: dict) -> list[dict]:
    """The issue's goals as measured ratios (None where a side was not measured)."""
    results = document["results"]
    ours = _find(results, "pteforge-xnnpack", 1, 1)
    hf = _find(results, "hf-eager", 1, 1)
    ct2 = _find(results, "ct2-fp32", 1, 1)

    def ratio(a, b, key):
        return a[key] / b[key] if a and b else None

    return [
        {"goal": "XNNPACK >= 2x faster than HF eager per sentence (greedy, 1 thread)",
         "measured": ratio(hf, ours, "ms_per_sentence"), "need": ">= 2.0"},
        {"goal": "XNNPACK within 1.3x of CTranslate2 fp32 per sentence (greedy, 1 thread)",
         "measured": ratio(ours, ct2, "ms_per_sentence"), "need": "<= 1.3"},
        {"goal": "peak RSS below HF eager's (greedy, 1 thread)",
         "measured": ratio(ours, hf, "peak_rss_mb"), "need": "< 1.0"},
    ]


def table(document: dict) -> str:
    machine = document["machine"]
    lines = [
        f"{document['model']}; {document['note']}",
        f"{machine['cpu']}, {machine['cores']} cores; {document['date']}",
        "",
        f"{'engine':<21} {'beams':>5} {'thr':>3} {'sent':>4} {'ms/sent':>9} {'ms/tok':>7} {'encode':>7} "
        f"{'load ms':>8} {'RSS MB':>7} {'size MB':>8}",
    ]
    for r in document["results"]:
        lines.append(
            f"{r['engine']:<21} {r['beams']:>5} {r['threads']:>3} {r['sentences']:>4} {r['ms_per_sentence']:>9.1f} "
            f"{r['ms_per_token']:>7.2f} {r['encode_ms']:>7.1f} {r['load_ms']:>8.0f} {r['peak_rss_mb']:>7.0f} "
            f"{r['artifact_mb']:>8.0f}")
    memory = document["planned_memory"]
    lines += ["", f"planned memory: {memory['total_planned_bytes_shared'] / 2**20:.0f} MB with one shared work "
                  f"arena (state {memory['state_arena_bytes'] / 2**20:.0f} MB), "
                  f"{memory['total_planned_bytes_separate'] / 2**20:.0f} MB with one arena per method", "", "targets:"]
    for target in document["targets"]:
        measured = "not measured" if target["measured"] is None else f"{target['measured']:.2f}"
        lines.append(f"  {target['goal']}: {measured} (need {target['need']})")
    return "\n".join(lines)


def plot(document: dict, path: str) -> None:
    """ms per generated token vs source length, greedy, 1 thread, one line per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 5))
    for r in document["results"]:
        if r["beams"] != 1 or r["threads"] != 1:
            continue
        points = sorted((p["source_tokens"], p["ms_per_token"]) for p in r["per_sentence"])
        # Mean per source length, so each engine is one line.
        by_length: dict[int, list[float]] = {}
        for length, value in points:
            by_length.setdefault(length, []).append(value)
        xs = sorted(by_length)
        axis.plot(xs, [sum(by_length[x]) / len(by_length[x]) for x in xs], marker="o", markersize=3, label=r["engine"])
    axis.set_xlabel("source length (tokens)")
    axis.set_yscale("log")  # the portable kernels are ~70x slower than the rest
    axis.set_ylabel("ms per generated token (log scale)")
    axis.set_title(f"OPUS-MT en->fr, greedy, 1 thread ({document['machine']['cpu'][:40]})")
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
