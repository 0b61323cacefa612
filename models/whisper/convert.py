"""A CTranslate2 Whisper directory (faster-whisper's model format) as a transformers model
folder, which pteforge.seq2seq exports like any other:

    ct2 directory                       transformers folder
    model.bin (float16, int8, ...)  ->  model.safetensors (float32), config.json
    config.json (suppressed ids,    ->  generation_config.json
      alignment heads, languages)
    tokenizer.json, vocabulary.*    ->  tokenizer.json (+ timestamp tokens), tokenizer_config.json
                                        preprocessor_config.json (WhisperFeatureExtractor)

    conversion = convert_directory("faster-whisper-tiny.en", "/tmp/whisper-tiny.en")

Every variable of model.bin becomes a parameter (weights.py) and every parameter comes
from a variable; what does not fit is an error naming it, before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import os

from models.whisper import settings, tokenizer as whisper_tokenizer
from models.whisper.model_file import read_model_file
from models.whisper.weights import Dimensions, WeightsError, read_weights


@dataclasses.dataclass(frozen=True)
class Conversion:
    """What was converted: the dimensions, and model.bin's variables and aliases."""

    dims: Dimensions
    variables: int
    aliases: int
    out_dir: str


def _check_ids(name: str, ids: list[int], vocab_size: int) -> None:
    outside = [i for i in ids if not 0 <= i < vocab_size]
    if outside:
        raise settings.SettingsError(f"config.json's {name} holds ids outside the vocabulary of {vocab_size}: "
                                     f"{outside[:5]}")


def instantiate(config, dims: Dimensions, state: dict, path: str):
    """WhisperForConditionalGeneration(config) holding `state` (read_weights'), in eval
    mode; a parameter no variable gave, or a shape that does not fit, is a WeightsError."""
    import torch
    from transformers import WhisperForConditionalGeneration

    with torch.device("meta"):  # no random initialization: every parameter is assigned
        model = WhisperForConditionalGeneration(config)
    try:
        missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    except RuntimeError as error:  # a shape that does not fit the configuration
        raise WeightsError(f"{path}: {error}") from None
    if dims.tied_output:
        model.tie_weights()
        missing = [name for name in missing if name != "proj_out.weight"]
    if missing or unexpected:
        raise WeightsError(f"{path}: no variable gives {', '.join(missing) or '-'}; no parameter takes "
                           f"{', '.join(unexpected) or '-'}")
    return model.eval()


def build_model(ct2_dir: str):
    """The transformers WhisperForConditionalGeneration of a CTranslate2 directory (float32,
    eval mode), its tokenizer (tokenizers.Tokenizer, with timestamps) and a Conversion."""
    path = os.path.join(ct2_dir, "model.bin")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{ct2_dir} has no model.bin (not a CTranslate2 model directory)")
    model_file = read_model_file(path)
    dims, state = read_weights(model_file)
    ct2_config = settings.read_ct2_config(ct2_dir)
    tokenizer = whisper_tokenizer.load_tokenizer(ct2_dir, dims.vocab_size)
    special = whisper_tokenizer.special_ids(tokenizer, dims.vocab_size)
    for name in ("suppress_ids", "suppress_ids_begin", "lang_ids"):
        _check_ids(name, ct2_config[name], dims.vocab_size)
    config = settings.model_config(dims, special, ct2_config["suppress_ids"], ct2_config["suppress_ids_begin"])
    model = instantiate(config, dims, state, path)
    token_of = {index: token for token, index in tokenizer.get_vocab(with_added_tokens=True).items()}
    model.generation_config = settings.generation_config(ct2_config, dims, special, token_of)
    return model, tokenizer, Conversion(dims, len(model_file.variables), len(model_file.aliases), "")


def convert_directory(ct2_dir: str, out_dir: str) -> Conversion:
    """Writes the transformers folder of a CTranslate2 Whisper directory into out_dir."""
    model, tokenizer, conversion = build_model(ct2_dir)
    extractor = settings.feature_extractor(conversion.dims)
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save(os.path.join(out_dir, "tokenizer.json"))
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as file:
        json.dump(whisper_tokenizer.tokenizer_config(tokenizer), file, indent=2)
        file.write("\n")
    extractor.save_pretrained(out_dir)
    return dataclasses.replace(conversion, out_dir=out_dir)
