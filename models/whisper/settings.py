"""The transformers settings of a CTranslate2 Whisper model: WhisperConfig from the
weights' dimensions, GenerationConfig from CTranslate2's config.json (suppressed and
begin-suppressed ids, alignment heads, languages) and the tokenizer's special tokens, and
the WhisperFeatureExtractor the model's inputs come from.

CTranslate2's WhisperLoader wrote config.json from the transformers generation config
(suppress_ids = suppress_tokens, suppress_ids_begin = begin_suppress_tokens,
alignment_heads, lang_ids = the language tokens' ids); the rest is Whisper's own:
<|startoftranscript|> starts the decoder, <|endoftext|> ends it and pads, timestamps
start after <|notimestamps|>, and, as in openai-whisper (`is_multilingual`), a model is
multilingual when its vocabulary has 51865 tokens or more.
"""

from __future__ import annotations

import json
import os

from models.whisper.weights import Dimensions

# Whisper's front end (openai-whisper audio.py; transformers' WhisperFeatureExtractor defaults).
SAMPLING_RATE = 16000
HOP_LENGTH = 160
N_FFT = 400
# openai-whisper's and faster-whisper's max_initial_timestamp (1.0 s) in 0.02 s steps.
MAX_INITIAL_TIMESTAMP_INDEX = 50
_MULTILINGUAL_VOCAB = 51865
_TASKS = ("transcribe", "translate")


class SettingsError(ValueError):
    """CTranslate2's config.json or the tokenizer lacks what Whisper needs."""


def read_ct2_config(directory: str) -> dict:
    """CTranslate2's config.json, with CTranslate2's default alignment heads when it has none."""
    path = os.path.join(directory, "config.json")
    if not os.path.isfile(path):
        raise SettingsError(f"{directory} has no config.json (CTranslate2 writes one with every Whisper model)")
    try:
        with open(path, encoding="utf-8") as file:
            config = json.load(file)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"{path} is not JSON: {error}") from None
    if not isinstance(config, dict):
        raise SettingsError(f"{path} is not a JSON object")
    for name in ("suppress_ids", "suppress_ids_begin", "lang_ids"):
        value = config.get(name) or []
        if not isinstance(value, list) or not all(isinstance(i, int) for i in value):
            raise SettingsError(f"{path}: {name} should be a list of token ids, not {value!r}")
        config[name] = value
    return config


def alignment_heads(config: dict, dims: Dimensions) -> list[list[int]]:
    """config.json's [layer, head] pairs; without them CTranslate2's default, every head of
    the decoder's second half (WhisperLoader.set_config)."""
    heads = config.get("alignment_heads")
    if heads is None:
        return [[layer, head] for layer in range(dims.decoder_layers // 2, dims.decoder_layers)
                for head in range(dims.decoder_attention_heads)]
    pairs = [list(pair) for pair in heads]
    for layer, head in pairs:
        if not (0 <= layer < dims.decoder_layers and 0 <= head < dims.decoder_attention_heads):
            raise SettingsError(f"alignment head [{layer}, {head}] is outside the decoder's {dims.decoder_layers} "
                                f"layers x {dims.decoder_attention_heads} heads")
    return pairs


def model_config(dims: Dimensions, special: dict[str, int], suppress: list[int], begin_suppress: list[int]):
    """WhisperConfig (transformers) for the weights' dimensions."""
    from transformers import WhisperConfig

    return WhisperConfig(
        vocab_size=dims.vocab_size,
        num_mel_bins=dims.num_mel_bins,
        d_model=dims.d_model,
        encoder_layers=dims.encoder_layers,
        decoder_layers=dims.decoder_layers,
        encoder_attention_heads=dims.encoder_attention_heads,
        decoder_attention_heads=dims.decoder_attention_heads,
        encoder_ffn_dim=dims.encoder_ffn_dim,
        decoder_ffn_dim=dims.decoder_ffn_dim,
        max_source_positions=dims.max_source_positions,
        max_target_positions=dims.max_target_positions,
        tie_word_embeddings=dims.tied_output,
        activation_function="gelu",
        scale_embedding=False,
        bos_token_id=special["<|endoftext|>"],
        eos_token_id=special["<|endoftext|>"],
        pad_token_id=special["<|endoftext|>"],
        decoder_start_token_id=special["<|startoftranscript|>"],
        suppress_tokens=suppress,
        begin_suppress_tokens=begin_suppress,
    )


def generation_config(config: dict, dims: Dimensions, special: dict[str, int], token_of: dict[int, str]):
    """GenerationConfig (transformers) as transformers' own Whisper checkpoints carry it."""
    from transformers import GenerationConfig

    end, start = special["<|endoftext|>"], special["<|startoftranscript|>"]
    settings = dict(
        decoder_start_token_id=start,
        bos_token_id=end,
        eos_token_id=end,
        pad_token_id=end,
        max_length=dims.max_target_positions,
        suppress_tokens=config["suppress_ids"],
        begin_suppress_tokens=config["suppress_ids_begin"],
        alignment_heads=alignment_heads(config, dims),
        no_timestamps_token_id=special["<|notimestamps|>"],
        prev_sot_token_id=special["<|startofprev|>"],
        max_initial_timestamp_index=MAX_INITIAL_TIMESTAMP_INDEX,
        return_timestamps=False,
        is_multilingual=dims.vocab_size >= _MULTILINGUAL_VOCAB,
    )
    if settings["is_multilingual"]:
        settings["lang_to_id"] = {token_of[i]: i for i in config["lang_ids"]}
        settings["task_to_id"] = {task: special[f"<|{task}|>"] for task in _TASKS}
    return GenerationConfig(**settings)


def feature_extractor(dims: Dimensions):
    """WhisperFeatureExtractor for the encoder: 2 x max_source_positions frames of
    HOP_LENGTH samples (30 s for Whisper's models)."""
    from transformers import WhisperFeatureExtractor

    samples = 2 * dims.max_source_positions * HOP_LENGTH
    if samples % SAMPLING_RATE:
        raise SettingsError(f"the encoder's {dims.max_source_positions} positions are not a whole number of seconds")
    return WhisperFeatureExtractor(feature_size=dims.num_mel_bins, sampling_rate=SAMPLING_RATE,
                                   hop_length=HOP_LENGTH, chunk_length=samples // SAMPLING_RATE, n_fft=N_FFT)
