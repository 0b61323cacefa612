"""OPUS-MT (Marian) checkpoints: finding, loading, and making a random-weights one.

A checkpoint is a directory in Hugging Face's layout: config.json, the weights
(model.safetensors or pytorch_model.bin), source.spm, target.spm, vocab.json and
optionally generation_config.json. It is found, in order, from:
  1. an explicit path (the exporter's `checkpoint` argument);
  2. $PTEFORGE_OPUS_CHECKPOINT (with Bazel: --repo_env=PTEFORGE_OPUS_CHECKPOINT=...);
  3. the Hugging Face cache: $HF_HOME/hub (default ~/.cache/huggingface/hub),
     models--Helsinki-NLP--opus-mt-en-fr/snapshots/<revision>/.
Without one (the default on a machine with no network), make_random() writes a
checkpoint of the same architecture with seeded random weights and SentencePiece
models trained on the repository's small English/French corpus. Its weights are
untrained: what it outputs is not a translation. A marker file says so, and
everything downstream repeats it.
"""

from __future__ import annotations

import dataclasses
import glob
import io
import json
import logging
import os

import torch

from models.opus.sizes import MarianSize

_log = logging.getLogger("pteforge")

CHECKPOINT_ENV = "PTEFORGE_OPUS_CHECKPOINT"
HF_REPO = "Helsinki-NLP/opus-mt-en-fr"
RANDOM_MARKER = "pteforge_random_weights.json"
_REQUIRED = ("config.json", "source.spm", "target.spm", "vocab.json")
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


class CheckpointError(Exception):
    """A checkpoint is missing or incomplete; the message says which files and where."""


@dataclasses.dataclass
class Checkpoint:
    """A loaded checkpoint.

    Attributes:
      directory: where it was loaded from.
      model: the MarianMTModel, eval mode, eager attention.
      source_spm, target_spm: the SentencePiece model files' bytes.
      vocab: piece -> id (shared by source and target, as in opus-mt-en-fr).
      generation: the generation config (num_beams, max_length, bad words, ...).
      random: whether the weights are pteforge's untrained random ones.
      name: the model's name for people ("opus-mt-en-fr", or the random architecture's).
    """

    directory: str
    model: torch.nn.Module
    source_spm: bytes
    target_spm: bytes
    vocab: dict[str, int]
    generation: object
    random: bool
    name: str


def hf_cache_snapshot() -> str | None:
    """The cached snapshot of Helsinki-NLP/opus-mt-en-fr, if the Hugging Face cache has one."""
    home = os.environ.get("HF_HOME", os.path.join(os.path.expanduser("~"), ".cache", "huggingface"))
    repo = os.path.join(home, "hub", "models--" + HF_REPO.replace("/", "--"))
    ref = os.path.join(repo, "refs", "main")
    if os.path.exists(ref):
        with open(ref) as f:
            snapshot = os.path.join(repo, "snapshots", f.read().strip())
        if os.path.isdir(snapshot):
            return snapshot
    snapshots = sorted(glob.glob(os.path.join(repo, "snapshots", "*")))
    return snapshots[-1] if snapshots else None


def find(explicit: str | None = None) -> str | None:
    """The checkpoint directory to use (see the module docstring), or None."""
    for candidate in (explicit, os.environ.get(CHECKPOINT_ENV), hf_cache_snapshot()):
        if candidate:
            return os.path.dirname(candidate) if os.path.isfile(candidate) else candidate
    return None


def check_files(directory: str) -> None:
    """Raises CheckpointError naming every missing file."""
    if not os.path.isdir(directory):
        raise CheckpointError(f"checkpoint {directory!r} is not a directory")
    missing = [name for name in _REQUIRED if not os.path.exists(os.path.join(directory, name))]
    if not any(os.path.exists(os.path.join(directory, name)) for name in _WEIGHTS):
        missing.append(" or ".join(_WEIGHTS))
    if missing:
        raise CheckpointError(
            f"checkpoint {directory!r} lacks {', '.join(missing)}. A Hugging Face MarianMT "
            "checkpoint directory has config.json, model.safetensors, source.spm, "
            "target.spm and vocab.json (MarianMTModel.save_pretrained plus "
            "MarianTokenizer.save_pretrained)."
        )


def _transformers_quietly():
    """transformers, with its progress bars (loading, saving weights) off."""
    import transformers
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    return transformers


def load(directory: str) -> Checkpoint:
    """Loads a checkpoint directory (no network access)."""
    transformers = _transformers_quietly()
    GenerationConfig, MarianMTModel = transformers.GenerationConfig, transformers.MarianMTModel

    check_files(directory)
    model = MarianMTModel.from_pretrained(directory, attn_implementation="eager", local_files_only=True).eval()
    try:
        generation = GenerationConfig.from_pretrained(directory, local_files_only=True)
    except OSError:
        generation = GenerationConfig.from_model_config(model.config)
    with open(os.path.join(directory, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)

    def read(name: str) -> bytes:
        with open(os.path.join(directory, name), "rb") as f:
            return f.read()

    marker = os.path.join(directory, RANDOM_MARKER)
    name = "opus-mt-en-fr"
    if os.path.exists(marker):
        with open(marker) as f:
            name = json.load(f).get("architecture", "opus-mt") + " (UNTRAINED random weights)"
    return Checkpoint(directory, model, read("source.spm"), read("target.spm"), vocab, generation,
                      os.path.exists(marker), name)


def _train_spm(lines: list[str], vocab_size: int) -> bytes:
    import sentencepiece

    model = io.BytesIO()
    # From an iterator, not a file: the model then records no input path, so the bytes
    # (and every .pte built from them) are the same wherever the build runs.
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    return model.getvalue()


def _pieces(spm: bytes) -> list[str]:
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor(model_proto=spm)
    return [
        processor.id_to_piece(i) for i in range(processor.get_piece_size())
        if not (processor.is_control(i) or processor.is_unknown(i))
    ]


def make_random(out_dir: str, size: MarianSize, source_corpus: str, target_corpus: str, seed: int = 0) -> None:
    """Writes a checkpoint of `size` with seeded random weights (see module docstring)."""
    transformers = _transformers_quietly()
    GenerationConfig, MarianConfig, MarianMTModel = (
        transformers.GenerationConfig, transformers.MarianConfig, transformers.MarianMTModel)

    def lines(path: str) -> list[str]:
        with open(path, encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip()]

    source_spm = _train_spm(lines(source_corpus), size.spm_vocab)
    target_spm = _train_spm(lines(target_corpus), size.spm_vocab)
    # Marian's shared vocabulary: </s> = 0, <unk> = 1, the pieces, <pad> last.
    vocab = {"</s>": 0, "<unk>": 1}
    for piece in _pieces(source_spm) + _pieces(target_spm):
        vocab.setdefault(piece, len(vocab))
    vocab_size = size.vocab_size or len(vocab) + 1
    if vocab_size <= len(vocab):
        raise ValueError(f"vocab_size {vocab_size} leaves no room for {len(vocab)} pieces and <pad>")
    # Ids the small corpus gives no piece get placeholders, so the vocabulary has the
    # model's size as a real checkpoint's does (tools such as CTranslate2's converter
    # check it). Tokenization never produces them.
    for index in range(len(vocab), vocab_size - 1):
        vocab[f"<unused{index}>"] = index
    pad = vocab_size - 1
    vocab["<pad>"] = pad

    config = MarianConfig(
        vocab_size=vocab_size,
        decoder_vocab_size=vocab_size,
        d_model=size.d_model,
        encoder_layers=size.encoder_layers,
        decoder_layers=size.decoder_layers,
        encoder_attention_heads=size.heads,
        decoder_attention_heads=size.heads,
        encoder_ffn_dim=size.ffn_dim,
        decoder_ffn_dim=size.ffn_dim,
        max_position_embeddings=size.max_positions,
        activation_function="swish",
        scale_embedding=True,
        pad_token_id=pad,
        decoder_start_token_id=pad,
        eos_token_id=0,
        forced_eos_token_id=0,
        init_std=size.init_std,
    )
    torch.manual_seed(seed)
    model = MarianMTModel(config).eval()
    with torch.no_grad():
        model.final_logits_bias[0, 0] += size.eos_bias
    # opus-mt-en-fr's generation settings.
    generation = GenerationConfig(
        bad_words_ids=[[pad]],
        bos_token_id=0,
        decoder_start_token_id=pad,
        eos_token_id=0,
        forced_eos_token_id=0,
        max_length=size.max_positions,
        num_beams=4,
        pad_token_id=pad,
        renormalize_logits=True,
    )
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir)
    generation.save_pretrained(out_dir)
    for name, data in (("source.spm", source_spm), ("target.spm", target_spm)):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"source_lang": "en", "target_lang": "fr", "model_max_length": size.max_positions,
                   "separate_vocabs": False, "tokenizer_class": "MarianTokenizer"}, f, indent=1)
    with open(os.path.join(out_dir, RANDOM_MARKER), "w") as f:
        json.dump({"architecture": size.name, "seed": seed,
                   "note": "untrained random weights: the output is not a translation"}, f, indent=1)
