"""export_causal_lm: a transformers causal LM to one .pte with prefill and decode_step
sharing its KV cache, checked against eager PyTorch (pteforge's conformance).

    from pteforge.llm import export_causal_lm
    program = export_causal_lm(model, max_seq_len=256, backend="xnnpack", tokenizer_dir="path/to/model")
    program.save("model.pte")

make_exporter is the same for `pteforge-export --hf_causal_lm=PATH` and the
causal_lm_pte Bazel rule: it loads the model from a local Hugging Face folder, or from
a GGUF file (llama.cpp's format; pteforge.llm.from_gguf.reader).
"""

from __future__ import annotations

import copy
import logging
import os
import tempfile

import torch
from torch import nn
from torch.export import Dim

from pteforge.llm import program_constants
from pteforge.llm.from_gguf import reader as gguf_reader
from pteforge.llm.static_cache import CausalLmWithCache
from pteforge.lower import quantize as quantize_lib
from pteforge.program.exporter import MultiMethodExporter
from pteforge.program.pte_program import PteProgram
from pteforge.support.errors import ExportError
from pteforge.support.quiet import held_back
from pteforge.support.spec import BACKENDS, DYNAMIC_INT8_TOLERANCE, SCALED_TOLERANCE, Call

_log = logging.getLogger("pteforge")

QUANTIZATIONS = (None, "int8", "int4")
MIN_SEQ_LEN = 16
DEFAULT_MAX_SEQ_LEN = 512


def causal_lm_exporter(
    model: nn.Module,
    max_seq_len: int,
    quantize: str | None = None,
    tokenizer_dir: str | os.PathLike | None = None,
    name: str | None = None,
) -> MultiMethodExporter:
    """The configured MultiMethodExporter behind export_causal_lm (for callers who want
    to add constants or conformance calls before exporting). Same arguments."""
    _check_arguments(max_seq_len, quantize)
    # On a copy: the caller's model keeps its attention implementation and its float32 weights.
    return _exporter(copy.deepcopy(model), max_seq_len, quantize, tokenizer_dir, name)


def _check_arguments(max_seq_len: int, quantize: str | None) -> None:
    if quantize not in QUANTIZATIONS:
        raise ExportError(f"quantize={quantize!r}: expected None, 'int8' or 'int4'")
    if not isinstance(max_seq_len, int) or max_seq_len < MIN_SEQ_LEN:
        raise ExportError(f"max_seq_len={max_seq_len!r}: must be an integer of at least {MIN_SEQ_LEN}")


def _exporter(model: nn.Module, max_seq_len: int, quantize: str | None, tokenizer_dir: str | os.PathLike | None,
              name: str | None) -> MultiMethodExporter:
    """causal_lm_exporter over `model` itself, which it switches and may quantize (a
    model no caller keeps: a copy, or one loaded for the export)."""
    module = CausalLmWithCache(model, max_seq_len)
    if quantize:
        quantize_lib.QUANTIZERS[quantize](module)
    constants = program_constants.model_constants(model, max_seq_len)
    if tokenizer_dir is not None:
        constants.update(program_constants.tokenizer_constants(tokenizer_dir, constants["vocab_size"]))
        constants.update(program_constants.chat_constants(tokenizer_dir))
        if not len(constants["eos_token_ids"]):
            eos = program_constants.eos_from_tokenizer_config(tokenizer_dir, constants[program_constants.TOKENIZER_JSON])
            constants["eos_token_ids"] = torch.tensor(eos, dtype=torch.int64)
    if not len(constants["eos_token_ids"]):
        _log.warning("the model names no end-of-sequence token: generation stops only at max_new_tokens or max_seq_len")

    exporter = MultiMethodExporter(module, name=name or str(constants["model_type"]))
    exporter.shared_state(*module.state_names())
    vocab = constants["vocab_size"]
    prompt = _tokens(vocab, 5, seed=0)
    exporter.method("prefill", (prompt,), dynamic_shapes=({1: Dim("tokens", min=2, max=max_seq_len)},),
                    input_ranges={0: (0, vocab - 1)})
    exporter.method("decode_step", (prompt[:, :1],), input_ranges={0: (0, vocab - 1)})
    exporter.call_sequence(_conformance_calls(vocab))
    # Logits and cached keys and values are judged relative to their scale.
    exporter.conformance_tolerance(DYNAMIC_INT8_TOLERANCE if quantize else SCALED_TOLERANCE)
    for key, value in constants.items():
        exporter.constant(key, value)
    return exporter


def export_causal_lm(
    model: nn.Module,
    max_seq_len: int,
    backend: str = "portable",
    quantize: str | None = None,
    tokenizer_dir: str | os.PathLike | None = None,
) -> PteProgram:
    """Exports a transformers causal LM to a verified .pte.

    Args:
      model: a transformers causal LM in eval mode, float32, whose class supports a
        static cache (from_pretrained(local_dir) or built from a config).
      max_seq_len: positions in the KV cache: prompt plus generated tokens (>= 16).
      backend: "portable", "xnnpack" or "cortex_m" (the linear layers on pteforge's
        CMSIS-NN operators; pteforge.cortex_m).
      quantize: None, "int8" (int8 weights per output channel) or "int4" (4-bit weights
        per group of 32 input channels, torchao's 8da4w), both with dynamically
        quantized int8 activations and int8 embedding tables; XNNPACK only
        (pteforge.lower.quantize.QUANTIZERS). The model itself
        is not modified; conformance compares against the same quantization in eager.
      tokenizer_dir: a folder with the model's tokenizer.json (and optionally
        tokenizer_config.json): stored in the .pte so that it generates text alone.

    Returns:
      The program: prefill(int64[1, n]) -> float32[1, vocab] for 2 <= n <= max_seq_len,
      decode_step(int64[1, 1]) -> float32[1, vocab], reset_state, and the constants of
      pteforge.llm.program_constants.

    Raises:
      ExportError: the model is not supported (the message says why), or the program
        does not match eager PyTorch.
    """
    if backend not in BACKENDS:
        raise ExportError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")
    if quantize and backend != "xnnpack":
        raise ExportError(f"quantize={quantize!r} needs backend='xnnpack' (the portable kernels have no "
                          "quantized matmul)")
    return causal_lm_exporter(model, max_seq_len, quantize, tokenizer_dir).export(backend=backend)


def load_hf_model(directory: str | os.PathLike) -> nn.Module:
    """AutoModelForCausalLM.from_pretrained(directory) in float32 and eval mode, from the
    local folder only (nothing is downloaded)."""
    directory = os.fspath(directory)
    if not os.path.isfile(os.path.join(directory, "config.json")):
        raise ExportError(f"{directory!r} is not a Hugging Face model folder: it has no config.json")
    from transformers import AutoModelForCausalLM

    try:
        with held_back():  # its progress bar and notes
            model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32, local_files_only=True)
    except (OSError, ValueError, KeyError) as error:
        raise ExportError(f"transformers cannot load a causal LM from {directory!r}: {error}") from error
    return model.eval()


def make_exporter(hf_model: str, max_seq_len: str = str(DEFAULT_MAX_SEQ_LEN), quantize: str = "none",
                  tokenizer_dir: str = "") -> MultiMethodExporter:
    """causal_lm_exporter for a model folder or a GGUF file (read into a temporary folder
    by pteforge.llm.from_gguf.reader); the arguments as strings (command line).
    tokenizer_dir: default the model's folder when it has a tokenizer.json."""
    try:
        length = int(max_seq_len)
    except ValueError:
        raise ExportError(f"max_seq_len={max_seq_len!r} is not an integer") from None
    quantization = None if quantize == "none" else quantize
    _check_arguments(length, quantization)
    if not os.path.isfile(hf_model):
        return _folder_exporter(hf_model, length, quantization, tokenizer_dir,
                                name=os.path.basename(os.path.normpath(hf_model)))
    with tempfile.TemporaryDirectory(prefix="pteforge-gguf-") as folder:
        _log.info("reading %s into a Hugging Face folder", hf_model)
        gguf_reader.gguf_to_folder(hf_model, folder)
        # Everything the exporter needs from the folder is read before it goes.
        return _folder_exporter(folder, length, quantization, tokenizer_dir,
                                name=os.path.basename(hf_model).split(".")[0])


def _folder_exporter(folder: str, max_seq_len: int, quantize: str | None, tokenizer_dir: str,
                     name: str) -> MultiMethodExporter:
    if not tokenizer_dir and os.path.isfile(os.path.join(folder, "tokenizer.json")):
        tokenizer_dir = folder
    # The model loaded here is the exporter's alone: no copy of it.
    return _exporter(load_hf_model(folder), max_seq_len, quantize, tokenizer_dir or None, name)


def _tokens(vocab: int, count: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (1, count), generator=generator, dtype=torch.int64)


def _conformance_calls(vocab: int) -> list[Call]:
    """A prompt, two generated tokens, a second turn of 3 tokens and one more token
    (11 positions: within MIN_SEQ_LEN)."""
    second_turn = _tokens(vocab, 3, seed=1)
    steps = _tokens(vocab, 3, seed=2)
    return [
        Call("prefill", (_tokens(vocab, 5, seed=0),)),
        Call("decode_step", (steps[:, 0:1],)),
        Call("decode_step", (steps[:, 1:2],)),
        Call("prefill", (second_turn,)),
        Call("decode_step", (steps[:, 2:3],)),
    ]
