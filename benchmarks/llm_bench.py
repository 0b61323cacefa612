"""llm_bench: a causal LM of realistic size with random weights, one thread, side by side:

  (a) pteforge    export_causal_lm (prefill + decode_step over one KV cache in the state
                  arena), XNNPACK, run by //cc/tools:generate --ids --stats
  (b) forward     the single forward(input_ids, cache_position) optimum-executorch exports
                  (transformers' TorchExportableModuleWithStaticCache -> torch.export with a
                  dynamic length -> to_edge_transform_and_lower(XnnpackPartitioner)), run
                  by benchmarks/forward_loop.cc on the same runtime (pteforge's Session)
  (c) eager       transformers in PyTorch, a prefill call then one call per token with its
                  DynamicCache, torch.set_num_threads(1)

float32 and int8 (pteforge.quantize.int8_linears: int8 weights per output channel,
dynamically quantized activations; the same for (a), (b) and (c)). Greedy, no EOS stop:
the same prompt and number of new tokens for everyone. Prints one table (markdown) and
writes every figure as JSON with --out.

    ./bazelw run //benchmarks:llm_bench                       # SmolLM2-135M-sized Llama
    ./bazelw run //benchmarks:llm_bench -- --size=small --quantize=none
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from pteforge.quiet import quiet_dependencies

quiet_dependencies()

import torch  # noqa: E402
import transformers  # noqa: E402
from runfiles import runfiles  # noqa: E402

from pteforge import quantize as quantize_lib  # noqa: E402
from pteforge.llm import export_causal_lm  # noqa: E402
from pteforge.quiet import held_back  # noqa: E402

SIZES = {
    # SmolLM2-135M's shape (HuggingFaceTB/SmolLM2-135M config.json), random weights.
    "smollm2_135m": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                         num_key_value_heads=3, vocab_size=49152, tie_word_embeddings=True),
    "small": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=4, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=8192, tie_word_embeddings=True),
}

_RUNFILES = runfiles.Create()


def _tool(name: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{name}")


def make_model(size: str) -> transformers.LlamaForCausalLM:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(max_position_embeddings=2048, rope_theta=100000.0, **SIZES[size])
    return transformers.LlamaForCausalLM(config).eval()


def export_single_forward(model, max_seq_len: int) -> tuple[bytes, float]:
    """optimum-executorch's recipe for one forward(input_ids, cache_position) on XNNPACK."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    start = time.perf_counter()
    with held_back():
        model.generation_config.cache_implementation = "static"
        wrapper = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=max_seq_len)
        length = torch.export.Dim("seq_len", min=1, max=max_seq_len - 1)
        ids = torch.zeros((1, 4), dtype=torch.long)
        positions = torch.arange(4, dtype=torch.long)
        program = torch.export.export(wrapper, (), {"input_ids": ids, "cache_position": positions},
                                      dynamic_shapes={"input_ids": {1: length}, "cache_position": {0: length}},
                                      strict=True)
        lowered = to_edge_transform_and_lower(
            program, partitioner=[XnnpackPartitioner()],
            compile_config=EdgeCompileConfig(_check_ir_validity=False, _skip_dim_order=True))
        data = lowered.to_executorch().buffer
    return data, time.perf_counter() - start


def run_json(command: list[str]) -> tuple[list[int], dict]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        sys.exit(f"llm_bench: {' '.join(command[:2])} failed ({result.returncode}):\n{result.stderr}")
    return [int(t) for t in result.stdout.split()], json.loads(result.stderr.strip().splitlines()[-1])


def eager(model, prompt: list[int], new_tokens: int) -> tuple[list[int], dict]:
    """Prefill then one token per call with transformers' DynamicCache, in a child
    process (its own peak RSS)."""
    torch.set_num_threads(1)
    ids = torch.tensor([prompt])
    with torch.no_grad():
        start = time.perf_counter()
        out = model(ids, use_cache=True)
        token = int(out.logits[0, -1].argmax())
        first = time.perf_counter()
        cache, generated = out.past_key_values, [token]
        while len(generated) < new_tokens:
            out = model(torch.tensor([[generated[-1]]]), past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            generated.append(int(out.logits[0, -1].argmax()))
        end = time.perf_counter()
    prefill_ms, decode_ms = (first - start) * 1e3, (end - first) * 1e3
    return generated, {"prefill_tokens_per_s": len(prompt) / (prefill_ms / 1e3), "time_to_first_token_ms": prefill_ms,
                       "decode_tokens_per_s": (new_tokens - 1) / (decode_ms / 1e3),
                       "peak_rss_mb": _peak_rss_mb()}


def _peak_rss_mb() -> float:
    """VmHWM, this process's own peak (ru_maxrss would include the parent's at fork)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def _print_row(r: dict) -> None:
    planned = r["planned_bytes"] and r["planned_bytes"] / 2**20
    print(f"| {r['program']} | {r['weights']} | {_fmt(r['prefill_tokens_per_s'])} | "
          f"{_fmt(r['decode_tokens_per_s'])} | {_fmt(r['time_to_first_token_ms'])} | {_fmt(r['peak_rss_mb'])} | "
          f"{_fmt(planned, 2)} | {_fmt(r['pte_mb'])} | {_fmt(r['export_s'], 0)} | {r['same_tokens_as_eager']} |",
          flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=sorted(SIZES), default="smollm2_135m")
    parser.add_argument("--quantize", choices=["both", "none", "int8"], default="both")
    parser.add_argument("--max_seq_len", type=int, default=256)
    parser.add_argument("--prompt_tokens", type=int, default=64)
    parser.add_argument("--new_tokens", type=int, default=64)
    parser.add_argument("--out", help="also write the figures here (JSON)")
    parser.add_argument("--work_dir", help="keep the .pte files here; ones already there (pteforge_<q>.pte, "
                        "forward_<q>.pte from an earlier run of the same size) are reused, their export time unknown")
    parser.add_argument("--eager_child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    prompt = torch.randint(0, SIZES[args.size]["vocab_size"], (args.prompt_tokens,),
                           generator=torch.Generator().manual_seed(1)).tolist()

    if args.eager_child:  # (c) in its own process
        model = make_model(args.size)
        if args.eager_child == "int8":
            quantize_lib.int8_linears(model)
        tokens, stats = eager(model, prompt, args.new_tokens)
        print(" ".join(map(str, tokens)))
        print(json.dumps(stats), file=sys.stderr)
        return 0

    rows = []
    work = args.work_dir or tempfile.mkdtemp(prefix="llm_bench.")
    os.makedirs(work, exist_ok=True)
    header = ("| program | weights | prefill tok/s | decode tok/s | TTFT ms | peak RSS MB | planned MB | .pte MB "
              "| export s | tokens = eager |")
    print(f"{args.size}, {args.prompt_tokens}-token prompt, {args.new_tokens} new tokens, max_seq_len "
          f"{args.max_seq_len}, 1 thread, work files in {work}\n\n{header}\n|" + "---|" * 10, flush=True)
    for quantize in (["none", "int8"] if args.quantize == "both" else [args.quantize]):
        ours = os.path.join(work, f"pteforge_{quantize}.pte")
        single = os.path.join(work, f"forward_{quantize}.pte")
        ours_export_s = single_export_s = None
        if not os.path.exists(ours):
            model = make_model(args.size)
            start = time.perf_counter()
            program = export_causal_lm(model, args.max_seq_len, backend="xnnpack",
                                       quantize=None if quantize == "none" else quantize)
            ours_export_s = time.perf_counter() - start
            program.save(ours)
        if not os.path.exists(single):
            single_model = make_model(args.size)
            if quantize == "int8":
                quantize_lib.int8_linears(single_model)
            data, single_export_s = export_single_forward(single_model, args.max_seq_len)
            with open(single, "wb") as f:
                f.write(data)
        ids = "--ids=" + " ".join(map(str, prompt))
        ours_tokens, ours_stats = run_json([_tool("cc/tools/generate"), f"--model={ours}", ids, "--greedy",
                                            "--threads=1", f"--max_new_tokens={args.new_tokens}", "--stats",
                                            "--repetition_penalty=1"])
        single_tokens, single_stats = run_json([_tool("benchmarks/forward_loop"), f"--model={single}", ids,
                                                f"--max_new_tokens={args.new_tokens}"])
        eager_tokens, eager_stats = run_json([sys.executable, __file__, f"--size={args.size}",
                                              f"--eager_child={quantize}", f"--prompt_tokens={args.prompt_tokens}",
                                              f"--new_tokens={args.new_tokens}"])
        for name, tokens, stats, size, export_s in [
                ("(a) pteforge prefill + decode_step", ours_tokens, ours_stats, os.path.getsize(ours), ours_export_s),
                ("(b) single forward (optimum-executorch)", single_tokens, single_stats, os.path.getsize(single),
                 single_export_s),
                ("(c) transformers eager", eager_tokens, eager_stats, None, None)]:
            rows.append({"program": name, "weights": "float32" if quantize == "none" else "int8",
                         "same_tokens_as_eager": tokens == eager_tokens, "pte_mb": size and size / 2**20,
                         "export_s": export_s, **{k: stats.get(k) for k in (
                             "prefill_tokens_per_s", "decode_tokens_per_s", "time_to_first_token_ms", "peak_rss_mb",
                             "planned_bytes")}})
            _print_row(rows[-1])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"size": args.size, "config": SIZES[args.size], "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
