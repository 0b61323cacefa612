"""llama.cpp for llm_bench, from pteforge's side (standard library only).

llama.cpp runs in its own venv (tools/llama_cpp/setup: llama-cpp-python built from source,
plus llama.cpp's HF -> GGUF converter), in a child process (benchmarks/llama_cpp_worker.py):

    setup, worker = default_paths()            # or Bazel runfiles paths
    python = setup_python(setup)               # builds the venv once (minutes), then instant
    row = run(python, worker, hf_model="/tmp/smol", work_dir="/tmp/work", weights="Q8_0",
              threads=1, prompt_ids=[1, 2, 3], new_tokens=64)
    row["decode_tokens_per_s"], row["tokens"], ...

    with Server(python, worker, gguf="model.gguf", n_ctx=1024) as server:   # a chat's kept cache
        reply = server.generate(ids, max_new_tokens=32, stops=[2])         # one turn; ids: all so far
        server.reset()                                                      # a new conversation

hf_model is a folder written by transformers' save_pretrained; without a tokenizer in it
the worker writes a placeholder one of config.json's vocab_size (its docstring says more).
From Bazel, give the binary these as data: //tools/llama_cpp:setup,
//tools/llama_cpp:requirements.txt (setup reads it from beside itself) and
benchmarks/llama_cpp_worker.py.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile

WEIGHTS = ("F32", "Q8_0", "Q4_0")

# Variables that would let pteforge's own Python packages into the other venv's processes
# (a Bazel py_binary sets PYTHONPATH; pip would then take its numpy for "already installed").
_PYTHON_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONSAFEPATH",
               "VIRTUAL_ENV", "PYTHONEXECUTABLE")


def _child_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _PYTHON_ENV}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def default_paths() -> tuple[str, str]:
    """(tools/llama_cpp/setup, benchmarks/llama_cpp_worker.py) beside this file: in the
    source tree, or in a Bazel runfiles tree that has them as data."""
    here = os.path.dirname(os.path.abspath(__file__))
    return (os.path.normpath(os.path.join(here, os.pardir, "tools", "llama_cpp", "setup")),
            os.path.join(here, "llama_cpp_worker.py"))


def setup_python(setup_script: str, timeout: float | None = 3600) -> str:
    """Runs tools/llama_cpp/setup (its progress lines pass through to stderr) and returns
    the python of its venv (the last line it prints)."""
    if not os.path.isfile(setup_script):
        raise RuntimeError(f"llama.cpp setup script not found: {setup_script}")
    tail: collections.deque[str] = collections.deque(maxlen=40)
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as stdout:
        process = subprocess.Popen(["bash", setup_script], stdin=subprocess.DEVNULL, stdout=stdout,
                                   stderr=subprocess.PIPE, text=True, env=_child_env())
        try:
            for line in process.stderr:
                sys.stderr.write(line)
                sys.stderr.flush()
                tail.append(line)
            returncode = process.wait(timeout=timeout)
        except BaseException:
            process.kill()
            process.wait()
            raise
        stdout.seek(0)
        lines = stdout.read().strip().splitlines()
    if returncode != 0 or not lines:
        raise RuntimeError(f"{setup_script} failed ({returncode}):\n{''.join(tail).rstrip()}")
    python = lines[-1].strip()
    if not os.access(python, os.X_OK):
        raise RuntimeError(f"{setup_script} printed {python!r}, which is not an executable python")
    return python


def run(python: str, worker_script: str, hf_model: str | None, work_dir: str | None, weights: str, threads: int,
        prompt_ids: list[int], new_tokens: int, timeout: float | None = 3600, gguf: str | None = None,
        n_ctx: int = 256, tokenizer: str = "auto") -> dict:
    """One greedy generation by llama.cpp in a child process, from the conversion of
    hf_model to weights (made in work_dir if not there yet) or from `gguf`, a file as it
    is (weights is then its label; tokenizer: the worker's --tokenizer for a conversion):
    the worker's JSON line as a dict (engine, weights,
    threads, prefill_tokens_per_s, decode_tokens_per_s, ttft_ms, peak_rss_mb, file_mb,
    convert_s, tokens, llama_cpp_version, ...). RuntimeError, with the worker's stderr
    tail, on failure."""
    if gguf is None and weights not in WEIGHTS:
        raise ValueError(f"weights={weights!r}: expected one of {WEIGHTS}")
    source = ([f"--gguf={gguf}", f"--weights={weights}"] if gguf else
              [f"--hf_model={hf_model}", f"--work_dir={work_dir}", f"--weights={weights}",
               f"--tokenizer={tokenizer}"])
    command = [python, worker_script, *source, f"--threads={threads}",
               "--prompt_ids=" + " ".join(str(int(t)) for t in prompt_ids), f"--new_tokens={new_tokens}",
               f"--n_ctx={n_ctx}"]
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=timeout, env=_child_env())
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise RuntimeError(f"llama_cpp_worker ({weights}) timed out after {timeout} s:\n{_tail(stderr)}") from None
    if result.returncode != 0:
        raise RuntimeError(f"llama_cpp_worker ({weights}, {threads} threads) failed ({result.returncode}):\n"
                           f"{_tail(result.stderr)}")
    lines = result.stdout.strip().splitlines()
    try:
        row = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        raise RuntimeError(f"llama_cpp_worker ({weights}) printed no JSON line:\n{_tail(result.stdout)}\n"
                           f"{_tail(result.stderr)}") from None
    return row


class Server:
    """llama.cpp in a child process (llama_cpp_worker.py --serve) that keeps its cache
    between calls: each generate() evaluates only the ids after those already cached, as
    a chat turn does. From gguf (a GGUF file as it is) or from the conversion of hf_model
    to weights (Q8_0, Q4_0, F32) made in work_dir (tokenizer: the worker's --tokenizer).
    Not thread-safe; close() (or `with`)
    ends the child."""

    def __init__(self, python: str, worker_script: str, *, gguf: str | None = None, hf_model: str | None = None,
                 work_dir: str | None = None, weights: str | None = None, tokenizer: str = "auto", threads: int = 1,
                 n_ctx: int = 1024, timeout: float | None = 3600):
        if bool(gguf) == bool(hf_model):
            raise ValueError("give gguf, or hf_model with work_dir and weights")
        source = ([f"--gguf={gguf}"] if gguf else
                  [f"--hf_model={hf_model}", f"--work_dir={work_dir}", f"--weights={weights}",
                   f"--tokenizer={tokenizer}"])
        self.label = os.path.basename(gguf) if gguf else weights
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self._process = subprocess.Popen([python, worker_script, "--serve", *source, f"--threads={threads}",
                                          f"--n_ctx={n_ctx}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, text=True, env=_child_env())
        self._timeout = timeout
        self.ready = self._read()  # conversion (minutes the first time) and loading

    def _read(self) -> dict:
        line = self._process.stdout.readline()
        if not line:
            self._process.wait(timeout=self._timeout)
            self._stderr.seek(0)
            raise RuntimeError(f"llama_cpp_worker --serve ({self.label}) ended ({self._process.returncode}):\n"
                               f"{_tail(self._stderr.read())}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"llama_cpp_worker --serve ({self.label}): {answer['error']}")
        return answer

    def _request(self, request: dict) -> dict:
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        return self._read()

    def generate(self, ids: list[int], max_new_tokens: int, stops: list[int]) -> list[int]:
        """The greedy reply to `ids`, which continue the cached ids; it ends with a stop
        id or after max_new_tokens (its last token stays out of the cache)."""
        return self._request({"ids": [int(t) for t in ids], "max_new_tokens": int(max_new_tokens),
                              "stops": [int(t) for t in stops]})["reply"]

    def reset(self) -> None:
        """Empties the cache: the next generate() starts a conversation."""
        self._request({"reset": True})

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._stderr.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
