"""A GGUF file (llama.cpp's format) as a Hugging Face model folder that pteforge exports.

    from pteforge.llm.from_gguf.reader import gguf_to_folder
    gguf_to_folder("SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2")   # config.json, model.safetensors, ...

The file is checked first (check_gguf): its architecture, its tokenizer's kind and
every tensor's storage type must be ones this reader supports, and every tensor must
lie inside the file; anything else is an ExportError naming the file, what it holds
and what is supported. transformers then dequantizes the weights to float32 (its GGUF
loader, which needs the `gguf` and `accelerate` packages) and builds the tokenizer from
the file's vocabulary and merges. transformers refuses to save a model it loaded from
a GGUF ("quantized with gguf and is not serializable"), so the weights go into a fresh
model of the same config, which saves (FINDINGS.md, "Real weights on the registry").

The folder holds what `save_pretrained` writes for a model downloaded from the Hub:
  config.json, model.safetensors   the dequantized float32 weights
  tokenizer.json                   the file's byte-level BPE vocabulary and merges
  tokenizer_config.json            special tokens, add_bos_token, the chat template
  generation_config.json           BOS, EOS (and end-of-turn) and padding ids; greedy
"""

from __future__ import annotations

import json
import os
import re
import struct

import torch

from pteforge.support.errors import ExportError
from pteforge.support.quiet import held_back

# What this reader was tested on (python/pteforge/llm/from_gguf/reader_test.py, and
# SmolLM2-135M-Instruct: models/smollm2).
SUPPORTED_ARCHITECTURES = ("llama",)
# tokenizer.ggml.model: "gpt2" is byte-level BPE (GPT-2, SmolLM2, Llama-3).
SUPPORTED_TOKENIZERS = ("gpt2",)
# Storage types transformers' GGUF loader dequantizes, by their ggml names.
SUPPORTED_TYPES = ("F32", "F16", "BF16", "Q4_0", "Q4_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K")

GGUF_MAGIC = b"GGUF"


def _field(reader, key: str):
    field = reader.fields.get(key)
    return None if field is None else field.contents()


def check_gguf(path: str | os.PathLike) -> dict[str, object]:
    """Checks that `path` is a whole GGUF file of a supported model; returns its metadata
    (key -> value, arrays of tokens and merges left out).

    Raises:
      ExportError: not a GGUF file; truncated or damaged; another architecture or kind of
        tokenizer; a tensor stored in a type this reader does not know. The message names
        the file and what is supported.
    """
    import gguf

    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ExportError(f"{path}: no such file")
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != GGUF_MAGIC:
        raise ExportError(f"{path} is not a GGUF file: it starts with {magic!r}, not {GGUF_MAGIC!r}")
    try:
        reader = gguf.GGUFReader(path)
    except ValueError as error:
        unknown = _unknown_type(str(error))
        if unknown is not None:
            raise ExportError(f"{path} stores a tensor in ggml type {unknown}, which this reader does not know; "
                              f"supported: {', '.join(SUPPORTED_TYPES)}") from error
        raise ExportError(f"{path} ({size} bytes) is truncated or damaged: its header or tensor table does not "
                          f"read ({error}); copy or download the file again") from error
    except (struct.error, IndexError, OverflowError, UnicodeDecodeError) as error:
        raise ExportError(f"{path} ({size} bytes) is truncated or damaged: its header or tensor table does not "
                          f"read ({type(error).__name__}: {error}); copy or download the file again") from error

    architecture = _field(reader, "general.architecture")
    if architecture not in SUPPORTED_ARCHITECTURES:
        raise ExportError(f"{path} holds a model of architecture {architecture!r}; pteforge reads GGUF files of "
                          f"architecture {', '.join(SUPPORTED_ARCHITECTURES)} (export other models from a Hugging "
                          "Face folder)")
    tokenizer = _field(reader, "tokenizer.ggml.model")
    if tokenizer not in SUPPORTED_TOKENIZERS:
        raise ExportError(f"{path} has a tokenizer of kind {tokenizer!r} (tokenizer.ggml.model); this reader takes "
                          f"{', '.join(SUPPORTED_TOKENIZERS)} (byte-level BPE)")
    for tensor in reader.tensors:
        name = tensor.tensor_type.name
        if name not in SUPPORTED_TYPES:
            raise ExportError(f"{path}: tensor {tensor.name} is stored as {name}, which this reader does not "
                              f"dequantize; supported: {', '.join(SUPPORTED_TYPES)}")
        end = tensor.data_offset + tensor.n_bytes
        if end > size:
            raise ExportError(f"{path} is truncated: tensor {tensor.name} ends at byte {end}, the file has {size}; "
                              "copy or download the file again")
    skipped = ("tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type", "tokenizer.ggml.scores")
    return {key: _field(reader, key) for key in reader.fields if key not in skipped and not key.startswith("GGUF.")}


def _unknown_type(message: str) -> str | None:
    """The type id in gguf's "N is not a valid GGMLQuantizationType" (N may be written
    np.uint32(N)), else None."""
    found = re.search(r"(\d+)\)? is not a valid GGMLQuantizationType", message)
    return found.group(1) if found else None


def gguf_to_folder(path: str | os.PathLike, out_dir: str | os.PathLike) -> None:
    """Writes the model of the GGUF file `path` to `out_dir` as a Hugging Face folder
    (created if missing): see the module docstring.

    Raises:
      ExportError: the file is refused by check_gguf, or transformers cannot load it.
    """
    path, out_dir = os.fspath(path), os.fspath(out_dir)
    metadata = check_gguf(path)
    folder, name = os.path.split(os.path.abspath(path))
    import transformers

    try:
        with held_back():  # transformers' progress bars and notes
            loaded = transformers.AutoModelForCausalLM.from_pretrained(
                folder, gguf_file=name, dtype=torch.float32, local_files_only=True)
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name, local_files_only=True)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        raise ExportError(f"transformers cannot load {path}: {error}") from error

    config = loaded.config
    del config.quantization_config  # the weights are plain float32 from here on
    model = type(loaded)(config)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = _generation_config(metadata)
    os.makedirs(out_dir, exist_ok=True)
    with held_back():
        model.eval().save_pretrained(out_dir)
        tokenizer.save_pretrained(out_dir, save_jinja_files=False)
    _complete_tokenizer_config(os.path.join(out_dir, "tokenizer_config.json"), metadata)


def _generation_config(metadata: dict[str, object]):
    """BOS, padding and EOS ids from the file; a chat model's end-of-turn token (eot)
    ends a reply too. The file has no sampling settings: generation is greedy."""
    import transformers

    eos = [metadata.get(f"tokenizer.ggml.{key}_token_id") for key in ("eos", "eot")]
    eos = list(dict.fromkeys(int(i) for i in eos if i is not None))
    return transformers.GenerationConfig(
        bos_token_id=metadata.get("tokenizer.ggml.bos_token_id"),
        eos_token_id=(eos[0] if len(eos) == 1 else eos) or None,
        pad_token_id=metadata.get("tokenizer.ggml.padding_token_id"))


def _complete_tokenizer_config(config_path: str, metadata: dict[str, object]) -> None:
    """What a Hub folder's tokenizer_config.json says and transformers leaves out when
    saving a tokenizer built from a GGUF: the context length, not the saving machine's
    loading flags."""
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    for key in ("is_local", "local_files_only"):
        config.pop(key, None)
    architecture = metadata["general.architecture"]
    context = metadata.get(f"{architecture}.context_length")
    if context is not None:
        config["model_max_length"] = int(context)
    with open(config_path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, ensure_ascii=False)
        f.write("\n")
