"""seq2seq_bench: encoder-decoders of realistic size with random weights, side by side,
batch 1, greedy and 4 beams, 1 and 2 threads, the same number of new tokens for every
engine:

  Whisper   a Whisper-tiny-sized WhisperForConditionalGeneration (d_model 384, 4 + 4
            layers, 6 heads, ffn 1536, vocabulary 51865, 80 mel bins, 1500 source and
            448 target positions); the source is one 30-s window of features
            (WhisperFeatureExtractor on 30 s of a seeded synthetic signal: tones, a
            sweep and noise, [1, 80, 3000]); the decoder prompt is Whisper's 4 tokens
            (start, English, transcribe, no timestamps)
  T5        a T5-small-sized T5ForConditionalGeneration (d_model 512, d_kv 64, d_ff
            2048, 6 + 6 layers, 8 heads, vocabulary 32128); the source is 64 token ids;
            the prompt is the decoder start token

Each model is built from its transformers config with seeded random weights and saved as
a local Hugging Face folder (CTranslate2's converter reads one); every engine reads it.
Engines, each at float32 and int8, each configuration in its own process:

  pteforge      export_seq2seq_lm(backend="xnnpack", quantize=None|"int8"): encode runs
                the encoder and writes every decoder layer's cross-attention keys and
                values into the shared cache once; decode_step reads them where they
                are and returns logits; the C++ search (TranslationModel / WhisperModel,
                cc/generate/search.h) picks the tokens. One program per beam count:
                max_rows = beams, max_sources 1 (batch 1: what the other engines are
                given), max_target_len 128, T5's max_source_len 64.
  optimum       the design optimum-executorch exports: transformers'
                Seq2SeqLMExportableModule pieces (Seq2SeqLMEncoderExportableModule and
                Seq2SeqLMDecoderExportableModuleWithStaticCache, static self-attention
                cache of 128 positions, batch 1), an `encoder` and a `text_decoder`
                method whose every step takes the encoder's hidden states again and
                projects them to cross-attention keys and values; lowered as
                optimum-executorch's XNNPACK recipe does (one .pte with both methods,
                to_edge_transform_and_lower with XnnpackPartitioner, the embedding
                padding_idx removed, MemoryPlanningPass(alloc_graph_input=False),
                do_quant_fusion_and_const_prop). Whisper: transformers' encoder wrapper
                calls encoder(input_ids=...), which Whisper's encoder does not take, so
                its encoder is called positionally as optimum-executorch's wrapper does,
                and the decoder's lm_head is Whisper's proj_out. int8: the same
                quantization as pteforge's (pteforge.lower.quantize.QUANTIZERS["int8"]: int8
                linear weights per channel with dynamic int8 activations, int8 embedding
                tables) on the model before export. Greedy only (OPTIMUM_BEAMS): its
                4-beam rows are recorded with the reason instead of figures.
  transformers  eager PyTorch (seq2seq_eager_worker.py), torch.set_num_threads: the
                encoder once, then greedy the model's own forward with its cache, one
                call per token (the prompt in the first), with beams generate() on the
                encoder's output; int8: the same quantized model, whose
                int8 layers eager PyTorch runs by dequantizing their weights on every
                call (torchao's unwrapped form): its tokens are the reference for the
                ExecuTorch programs, its speed is not an int8 engine's.
  ctranslate2   CTranslate2 (seq2seq_ct2_worker.py) on the folder converted with
                quantization float32 / int8 (compute type the same), intra_threads =
                threads, inter_threads=1, beam_size = beams; Whisper through ctranslate2.models.Whisper (encode, then
                generate on the encoded features), T5 through ctranslate2.Translator,
                which cannot encode alone: its encode_ms is null and its decode rate
                comes from two runs (1 and N tokens; see the worker).

Both ExecuTorch programs run on pteforge's runtime, the Session (benchmarks/
seq2seq_loop.cc: the same kernels, XNNPACK and thread pool), one token per decode call
(the prompt's tokens too). Every engine runs in its own process started through
peak_rss.py, so peak RSS is the engine's own (ru_maxrss of the child), after a short
untimed warm-up. Columns:

  encode ms     the encoder call (pteforge: + writing the cross-attention cache; the
                others compute cross-attention keys and values in decode steps)
  decode tok/s  new tokens / the time from the end of encode to the last new token
                (the prompt's steps included; with beams, the best hypothesis' tokens);
                every engine generates exactly N new tokens: no EOS before them
                (pteforge's search: min_length; eager: EOS left out of the argmax,
                min_new_tokens; CTranslate2: min_decoding_length / EOS suppressed)
  planned MB    the program's planned memory as the Session allocates it (the largest
                method's work arena + the state arena; llm_bench's planned_bytes); the
                JSON also has planned_separate_mb, one arena per method (ExecuTorch's
                Module). null for transformers and CTranslate2.
  = eager       how many of the N tokens equal transformers eager's at the same precision,
                beams and threads (CTranslate2 int8 quantizes differently: compared
                anyway, for reference)

Then the goals as ratios (seq2seq_common.goals), each met / NOT MET with the figures:
pteforge's decode tok/s >= CTranslate2's at the same precision, beams and threads, and
>= 2x transformers eager's in float32; its encode time <= CTranslate2's and its peak RSS
<= CTranslate2's; greedy, >= 1.5x the optimum design's decode at planned memory <= its.

    ./bazelw run //benchmarks:seq2seq_bench                      # everything, real sizes
    ./bazelw run //benchmarks:seq2seq_bench -- --quick           # tiny models, 16 tokens
    ./bazelw run //benchmarks:seq2seq_bench -- --model=t5 --precision=float32 --beams=4 --threads=1

A full run writes benchmarks/results/seq2seq_bench.json (in the workspace); a partial
one (--quick, --model, --precision, --engines, --size, --beams, --threads) writes only
with --out.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import sys
import tempfile
import time

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from runfiles import runfiles  # noqa: E402

from benchmarks import bench_output, engine_process, seq2seq_common, seq2seq_ct2_worker  # noqa: E402
from benchmarks.seq2seq_common import ENGINES, MODELS, PRECISIONS  # noqa: E402
from pteforge.lower import quantize as quantize_lib  # noqa: E402
from pteforge.seq2seq import export as seq2seq_export  # noqa: E402
from pteforge.support.quiet import held_back  # noqa: E402

_RUNFILES = runfiles.Create()
# Why the optimum-executorch design has no beam rows.
OPTIMUM_BEAMS = "greedy only: its static cache (batch 1) has no reorder for beam search"


def _tool(name: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{name}")


def _progress(message: str) -> None:
    print(f"seq2seq_bench: {message}", file=sys.stderr, flush=True)


def make_model(model: str, size: str, seed: int = 0):
    """The model with seeded random weights, eval mode."""
    torch.manual_seed(seed)
    config = seq2seq_common.CONFIGS[model, size]
    with held_back():
        if model == "whisper":
            built = transformers.WhisperForConditionalGeneration(transformers.WhisperConfig(**config))
            # Greedy argmax everywhere: no suppressed tokens (CTranslate2's converter reads these).
            built.generation_config.suppress_tokens = []
            built.generation_config.begin_suppress_tokens = []
        else:
            built = transformers.T5ForConditionalGeneration(transformers.T5Config(**config))
    return built.eval()


def whisper_features(mel_bins: int, seed: int = 2) -> np.ndarray:
    """[1, mel_bins, 3000]: WhisperFeatureExtractor's log-mel features of 30 s of a seeded
    synthetic signal (three tones switching every second, a slow sweep, noise)."""
    rate, seconds = 16000, 30
    draw = np.random.default_rng(seed)
    t = np.arange(rate * seconds) / rate
    tones = draw.uniform(150, 3000, size=(seconds, 3))
    signal = np.zeros_like(t)
    for k in range(3):
        signal += 0.2 * np.sin(2 * np.pi * np.repeat(tones[:, k], rate) * t)
    signal += 0.1 * np.sin(2 * np.pi * (200 + 100 * t) * t) + 0.02 * draw.standard_normal(t.shape)
    extractor = transformers.WhisperFeatureExtractor(feature_size=mel_bins)
    features = extractor(signal.astype(np.float32), sampling_rate=rate, return_tensors="np").input_features
    return features.astype(np.float32)


def export_pteforge(model, name: str, precision: str, beams: int, args):
    """pteforge.seq2seq's program for one source and `beams` rows (a PteProgram)."""
    max_source = None if name == "whisper" else args.source_tokens
    return seq2seq_export.export_seq2seq_lm(
        model, max_source_len=max_source, max_target_len=args.max_target_len, max_rows=beams, max_sources=1,
        backend="xnnpack", quantize=None if precision == "float32" else precision)


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


class _WhisperEncoder(torch.nn.Module):
    """optimum-executorch's Seq2SeqLMEncoderExportableModule: the encoder called
    positionally (transformers' passes input_ids=, which WhisperEncoder does not take)."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, input_features):
        return self.encoder(input_features).last_hidden_state


def export_optimum(model, name: str, precision: str, example, args) -> bytes:
    """encoder + text_decoder in one .pte, optimum-executorch's XNNPACK recipe."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower
    from executorch.exir.dialects._ops import ops as exir_ops
    from executorch.exir.pass_base import ExportPass, PassResult
    from executorch.exir.passes import MemoryPlanningPass
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from transformers.integrations.executorch import (
        Seq2SeqLMDecoderExportableModuleWithStaticCache,
        Seq2SeqLMEncoderExportableModule,
    )

    class RemovePaddingIdxEmbeddingPass(ExportPass):
        """optimum.executorch.passes.remove_padding_idx_embedding_pass."""

        def call(self, graph_module):
            for node in graph_module.graph.nodes:
                if node.op == "call_function" and node.target == exir_ops.edge.aten.embedding.default:
                    if len(node.args) == 3:
                        node.args = (node.args[0], node.args[1])
            graph_module.recompile()
            return PassResult(graph_module, True)

    model = copy.deepcopy(model)
    if precision != "float32":
        with held_back():
            quantize_lib.QUANTIZERS[precision](model)
    whisper = name == "whisper"
    with held_back(), torch.no_grad():
        if whisper:
            model.lm_head = model.proj_out  # what the decoder wrapper projects with
            encoder = _WhisperEncoder(model.get_encoder()).eval()
            encoder_shapes = decoder_shapes = None  # Whisper's window is fixed
        else:
            encoder = Seq2SeqLMEncoderExportableModule(model.get_encoder()).eval()
            encoder_shapes = {"input_ids": {1: torch.export.Dim("encoder_seq_length", max=args.source_tokens)}}
            decoder_shapes = {"decoder_input_ids": None, "cache_position": None, "encoder_hidden_states": {
                1: torch.export.Dim("encoder_hidden_seq_length", max=args.source_tokens)}}
        encoder_program = torch.export.export(encoder, (example,), dynamic_shapes=encoder_shapes, strict=True)
        hidden = encoder_program.module()(example)
        decoder = Seq2SeqLMDecoderExportableModuleWithStaticCache(model, args.max_target_len, 1).eval()
        start = torch.tensor([[seq2seq_common.prompt(name)[0]]], dtype=torch.long)
        with sdpa_kernel([SDPBackend.MATH]):
            decoder_program = torch.export.export(decoder, (start, hidden, torch.tensor([0], dtype=torch.long)),
                                                  dynamic_shapes=decoder_shapes, strict=True)
        lowered = to_edge_transform_and_lower(
            {"encoder": encoder_program, "text_decoder": decoder_program},
            partitioner=[XnnpackPartitioner()],
            compile_config=EdgeCompileConfig(_check_ir_validity=False, _skip_dim_order=True),
            transform_passes=[RemovePaddingIdxEmbeddingPass()])
        program = lowered.to_executorch(ExecutorchBackendConfig(
            extract_delegate_segments=True, do_quant_fusion_and_const_prop=True,
            memory_planning_pass=MemoryPlanningPass(alloc_graph_input=False)))
    return program.buffer


def _parse(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=",".join(MODELS), help=f"some of {','.join(MODELS)}")
    parser.add_argument("--precision", default=",".join(PRECISIONS), help=f"some of {','.join(PRECISIONS)}")
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"some of {','.join(ENGINES)}")
    parser.add_argument("--size", choices=("real", "tiny"), default="real")
    parser.add_argument("--quick", action="store_true", help="--size=tiny --new_tokens=16: minutes, not an hour")
    parser.add_argument("--new_tokens", type=int, default=64)
    parser.add_argument("--source_tokens", type=int, default=64, help="T5's source length (its max_source_len)")
    parser.add_argument("--max_target_len", type=int, default=128, help="decoder positions of both programs")
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    parser.add_argument("--beams", default="1,4", help="beam counts (1: greedy), e.g. 1,4")
    parser.add_argument("--out", help="write the rows as JSON here (default for a full run: "
                                      "benchmarks/results/seq2seq_bench.json in the workspace)")
    parser.add_argument("--work_dir", help="keep the folders, .pte and CTranslate2 models here; ones already there "
                                           "are reused (their export time unknown)")
    args = parser.parse_args()
    if args.quick:
        args.size, args.new_tokens = "tiny", 16
    for flag in ("threads", "beams"):
        try:
            values = [int(v) for v in getattr(args, flag).split(",") if v]
        except ValueError:
            values = []
        if not values or min(values) < 1:
            parser.error(f"--{flag}: expected positive integers separated by commas")
        setattr(args, flag, values)
    chosen = {}
    for flag, known in (("model", MODELS), ("precision", PRECISIONS), ("engines", ENGINES)):
        chosen[flag] = [v for v in getattr(args, flag).split(",") if v]
        if not chosen[flag] or not set(chosen[flag]) <= set(known):
            parser.error(f"--{flag}: expected some of {', '.join(known)}")
    full = (args.size == "real" and args.threads == [1, 2] and args.beams == [1, 4]
            and all(len(chosen[f]) == len(k) for f, k in
                    (("model", MODELS), ("precision", PRECISIONS), ("engines", ENGINES))))
    out = args.out or (os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "benchmarks", "results",
                                    "seq2seq_bench.json") if full else None)
    work = args.work_dir or tempfile.mkdtemp(prefix="seq2seq_bench.")
    os.makedirs(work, exist_ok=True)
    if args.max_target_len < max(len(seq2seq_common.prompt(m)) for m in chosen["model"]) + args.new_tokens:
        parser.error("--max_target_len must hold the prompt and --new_tokens")
    started = time.time()
    print(f"{args.size} sizes, batch 1, {args.beams} beam(s), {args.new_tokens} new tokens, {args.threads} "
          f"thread(s); T5 source "
          f"{args.source_tokens} tokens, Whisper one 30-s window; max_target_len {args.max_target_len}; work files in "
          f"{work}\n\n{seq2seq_common.HEADER}\n|" + "---|" * seq2seq_common.HEADER.count("|", 1), flush=True)

    rows = []
    for name in chosen["model"]:
        folder = os.path.join(work, f"{name}_hf")
        if not os.path.exists(os.path.join(folder, "config.json")):
            _progress(f"{name}: building the model and saving {folder}")
            with held_back():
                make_model(name, args.size).save_pretrained(folder)
        model = seq2seq_export.load_hf_seq2seq(folder)
        config = model.config
        prompt = list(seq2seq_common.prompt(name))
        if name == "whisper":
            features = whisper_features(config.num_mel_bins)
            source_path = os.path.join(work, "whisper_features.f32")
            features[0].tofile(source_path)
            example = torch.from_numpy(features)
            loop_source = [f"--features={source_path}", f"--mel_bins={config.num_mel_bins}"]
            worker_source = source_path
        else:
            ids = seq2seq_common.t5_source(args.source_tokens, config.vocab_size)
            example = torch.tensor([ids])
            loop_source = ["--source_ids=" + " ".join(map(str, ids))]
            worker_source = " ".join(map(str, ids))
        eos = int(config.eos_token_id)
        for precision in chosen["precision"]:
            batch = []

            def record(engine, beams, threads, stats, tokens, path=None, export_s=None, **extra):
                planned, separate = stats.get("planned_bytes"), stats.get("separate_arenas_bytes")
                batch.append({
                    "engine": engine, "model": name, "precision": precision, "threads": threads, "beams": beams,
                    "encode_ms": stats.get("encode_ms"), "decode_tokens_per_s": stats.get("decode_tokens_per_s"),
                    "peak_rss_mb": stats.get("peak_rss_mb"), "planned_mb": planned and planned / 2**20,
                    "planned_separate_mb": separate and separate / 2**20,
                    "file_mb": path and os.path.getsize(path) / 2**20, "export_s": export_s,
                    "decode_ms": stats.get("decode_ms"), "load_ms": stats.get("load_ms"),
                    "new_tokens": len(tokens), "tokens": tokens, **extra})

            def run(command):
                stdout, stderr = engine_process.run(command)
                stats = {}
                for line in engine_process.json_lines(stderr):
                    stats.update(line)
                return _parse(stdout), stats

            def exported(engine, beams, export):
                """The program's path (exported now unless the work folder has it) and export time."""
                path = os.path.join(work, f"{name}_{engine}_{precision}_{beams}beams.pte")
                if os.path.exists(path):
                    return path, None
                _progress(f"{name} {precision}: exporting the {engine} program for {beams} beam(s) "
                          "(minutes at real size) ...")
                start = time.perf_counter()
                export(path)
                export_s = time.perf_counter() - start
                _progress(f"{name} {precision}: {engine} exported in {export_s:.0f} s")
                return path, export_s

            for beams in args.beams:
                for engine in ("pteforge", "optimum"):
                    if engine not in chosen["engines"]:
                        continue
                    if engine == "optimum" and beams > 1:
                        for threads in args.threads:
                            record(engine, beams, threads, {}, [], skipped=OPTIMUM_BEAMS)
                        continue
                    if engine == "pteforge":
                        path, export_s = exported(engine, beams, lambda out: export_pteforge(
                            model, name, precision, beams, args).save(out))
                    else:
                        path, export_s = exported(engine, beams, lambda out: _write(out, export_optimum(
                            model, name, precision, example, args)))
                    for threads in args.threads:
                        _progress(f"{name} {precision}: running {engine}, {beams} beam(s), {threads} thread(s)")
                        tokens, stats = run([_tool("benchmarks/seq2seq_loop"), f"--model={path}",
                                             f"--design={engine}", *loop_source,
                                             "--prompt=" + " ".join(map(str, prompt)),
                                             f"--new_tokens={args.new_tokens}", f"--threads={threads}",
                                             f"--beams={beams}", f"--eos={eos}"])
                        record(engine, beams, threads, stats, tokens, path, export_s)
                        export_s = None  # once per program
                if "transformers" in chosen["engines"]:
                    for threads in args.threads:
                        _progress(f"{name} {precision}: running transformers eager, {beams} beam(s), "
                                  f"{threads} thread(s)")
                        tokens, stats = run([sys.executable, _tool("benchmarks/seq2seq_eager_worker.py"), folder,
                                             precision, str(threads), str(args.new_tokens),
                                             " ".join(map(str, prompt)), worker_source, str(beams)])
                        record("transformers", beams, threads, stats, tokens)
                if "ctranslate2" in chosen["engines"]:
                    ct2_dir = os.path.join(work, f"{name}_ct2_{precision}")
                    export_s = None
                    if not os.path.exists(os.path.join(ct2_dir, "model.bin")):
                        _progress(f"{name} {precision}: converting for CTranslate2")
                        start = time.perf_counter()
                        with held_back():
                            seq2seq_ct2_worker.convert(folder, name, config.vocab_size, ct2_dir, precision)
                        export_s = time.perf_counter() - start
                    for threads in args.threads:
                        _progress(f"{name} {precision}: running CTranslate2, {beams} beam(s), {threads} thread(s)")
                        tokens, stats = run([sys.executable, _tool("benchmarks/seq2seq_ct2_worker.py"), ct2_dir,
                                             name, precision, str(threads), str(args.new_tokens),
                                             " ".join(map(str, prompt)), worker_source, str(beams)])
                        record("ctranslate2", beams, threads, stats, tokens, os.path.join(ct2_dir, "model.bin"),
                               export_s, encode_and_first_step_ms=stats.get("encode_and_first_step_ms"))
                        export_s = None
            for row in batch:
                eager = next((r["tokens"] for r in batch if r["engine"] == "transformers"
                              and (r["beams"], r["threads"]) == (row["beams"], row["threads"])), None)
                row["tokens_equal_eager"] = seq2seq_common.agreement(row["tokens"], eager) if row["tokens"] else None
                print(seq2seq_common.table_row(row), flush=True)
            rows += batch

    found = seq2seq_common.goals(rows)
    if found:
        print("\ngoals (decode tokens/s at the same precision):\n" + "\n".join(seq2seq_common.goal_lines(found)),
              flush=True)
    wall_s = time.time() - started
    print(f"\nwall time {wall_s / 60:.1f} min", flush=True)
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        document = {
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "machine": bench_output.machine(),
            "command": " ".join(sys.argv), "wall_s": wall_s, "size": args.size,
            "configs": {m: seq2seq_common.CONFIGS[m, args.size] for m in chosen["model"]},
            "workload": {"batch": 1, "beams": args.beams, "threads": args.threads, "new_tokens": args.new_tokens,
                         "t5_source_tokens": args.source_tokens, "whisper_features": [1, 80, 3000],
                         "prompts": {m: list(seq2seq_common.prompt(m)) for m in chosen["model"]},
                         "max_target_len": args.max_target_len,
                         "pteforge_programs": "max_rows = beams, max_sources = 1"},
            "goals": found, "rows": [{**r, "machine": bench_output.machine(), "command": " ".join(sys.argv)}
                                     for r in rows]}
        with open(out, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=2)
        _progress(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
