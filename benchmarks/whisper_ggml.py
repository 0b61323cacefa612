"""A transformers Whisper folder (config.json, model.safetensors, tokenizer.json) written as
whisper.cpp's ggml model file, for transcribe_bench's whisper.cpp rows: pywhispercpp's
wheel has no converter (whisper.cpp keeps convert-h5-to-ggml.py in its source tree), so
this is that script's layout, written from the folder without torch:

    int32 magic 0x67676d6c ("ggml")
    int32 hyperparameters: n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
          n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype (1: float16)
    int32 n_mels, int32 n_fft_bins, then the [n_mels, n_fft_bins] float32 mel filters
    int32 token count, then per token (by id) int32 length + its bytes (the byte-level BPE
          string mapped back to bytes); whisper.cpp names the special tokens itself
    per tensor: int32 n_dims, int32 name length, int32 ftype (0 float32, 1 float16), the
          dims innermost first, the name, the data

Tensors take openai-whisper's names (attn.key, cross_attn.query, mlp.0, ln_post, ...);
matrices are float16, vectors, the conv biases (as [n, 1]) and the positional embeddings
float32, as whisper.cpp's own tiny.en file has them. proj_out is left out (whisper.cpp
projects with the token embedding: tiny.en ties them). The mel filters are
transformers' Slaney filters, the ones WhisperFeatureExtractor uses (openai-whisper's
mel_filters.npz is librosa's, the same filters to float32 rounding).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

_MAGIC = 0x67676D6C

# transformers' parameter names -> openai-whisper's (convert-h5-to-ggml.py's conv_map).
_LAYER_PARTS = {
    "self_attn.k_proj": "attn.key",
    "self_attn.q_proj": "attn.query",
    "self_attn.v_proj": "attn.value",
    "self_attn.out_proj": "attn.out",
    "self_attn_layer_norm": "attn_ln",
    "encoder_attn.k_proj": "cross_attn.key",
    "encoder_attn.q_proj": "cross_attn.query",
    "encoder_attn.v_proj": "cross_attn.value",
    "encoder_attn.out_proj": "cross_attn.out",
    "encoder_attn_layer_norm": "cross_attn_ln",
    "fc1": "mlp.0",
    "fc2": "mlp.2",
    "final_layer_norm": "mlp_ln",
}
_TOP_LEVEL = {
    "encoder.layer_norm.bias": "encoder.ln_post.bias",
    "encoder.layer_norm.weight": "encoder.ln_post.weight",
    "encoder.embed_positions.weight": "encoder.positional_embedding",
    "decoder.layer_norm.bias": "decoder.ln.bias",
    "decoder.layer_norm.weight": "decoder.ln.weight",
    "decoder.embed_positions.weight": "decoder.positional_embedding",
    "decoder.embed_tokens.weight": "decoder.token_embedding.weight",
}
# Kept in float32 although they have two dimensions (as whisper.cpp's files have them).
_FLOAT32_NAMES = {"encoder.conv1.bias", "encoder.conv2.bias", "encoder.positional_embedding",
                  "decoder.positional_embedding"}


def ggml_name(name: str) -> str | None:
    """openai-whisper's name for a transformers parameter ("model.decoder.layers.0.fc1.weight"
    -> "decoder.blocks.0.mlp.0.weight"); None for proj_out (tied to the token embedding)."""
    if name.startswith("proj_out."):
        return None
    parts = name.split(".")
    if parts[0] == "model":
        parts = parts[1:]
    if len(parts) > 3 and parts[1] == "layers":
        return ".".join([parts[0], "blocks", parts[2], _LAYER_PARTS[".".join(parts[3:-1])], parts[-1]])
    joined = ".".join(parts)
    return _TOP_LEVEL.get(joined, joined)


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character map (the byte-level BPE's alphabet)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    characters = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            characters.append(256 + extra)
            extra += 1
    return dict(zip(printable, map(chr, characters)))


def token_bytes(folder: str) -> list[bytes]:
    """The BPE vocabulary of tokenizer.json as bytes, by id (no added special tokens)."""
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        vocabulary = json.load(f)["model"]["vocab"]
    decoder = {character: byte for byte, character in _bytes_to_unicode().items()}
    ordered = sorted(vocabulary.items(), key=lambda item: item[1])
    if [i for _, i in ordered] != list(range(len(ordered))):
        raise ValueError("tokenizer.json's vocabulary has gaps in its ids")
    return [bytes(decoder[c] for c in token) for token, _ in ordered]


def mel_filters(mel_bins: int) -> np.ndarray:
    """[mel_bins, 201] float32: WhisperFeatureExtractor's filters (n_fft 400, 16 kHz)."""
    from transformers.audio_utils import mel_filter_bank

    bank = mel_filter_bank(num_frequency_bins=201, num_mel_filters=mel_bins, min_frequency=0.0,
                           max_frequency=8000.0, sampling_rate=16000, norm="slaney", mel_scale="slaney")
    return np.ascontiguousarray(bank.T, dtype=np.float32)


def convert(folder: str, out_path: str) -> str:
    """Writes `folder`'s model to `out_path` in ggml format (float16 matrices); returns it."""
    from safetensors.numpy import load_file

    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    tensors = load_file(os.path.join(folder, "model.safetensors"))
    filters = mel_filters(config["num_mel_bins"])
    tokens = token_bytes(folder)
    with open(out_path, "wb") as out:
        out.write(struct.pack("<i", _MAGIC))
        out.write(struct.pack("<11i", config["vocab_size"], config["max_source_positions"], config["d_model"],
                              config["encoder_attention_heads"], config["encoder_layers"],
                              config["max_target_positions"], config["d_model"], config["decoder_attention_heads"],
                              config["decoder_layers"], config["num_mel_bins"], 1))
        out.write(struct.pack("<2i", *filters.shape))
        out.write(filters.tobytes())
        out.write(struct.pack("<i", len(tokens)))
        for token in tokens:
            out.write(struct.pack("<i", len(token)) + token)
        for name, value in tensors.items():
            mapped = ggml_name(name)
            if mapped is None:
                continue
            data = np.asarray(value, dtype=np.float32).squeeze()
            if mapped in ("encoder.conv1.bias", "encoder.conv2.bias"):
                data = data.reshape(data.shape[0], 1)
            half = data.ndim >= 2 and mapped not in _FLOAT32_NAMES
            data = np.ascontiguousarray(data.astype(np.float16 if half else np.float32))
            encoded = mapped.encode("utf-8")
            out.write(struct.pack("<3i", data.ndim, len(encoded), 1 if half else 0))
            out.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
            out.write(encoded)
            out.write(data.tobytes())
    return out_path
