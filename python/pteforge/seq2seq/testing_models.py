"""Tiny random transformers encoder-decoders, one per family pteforge.seq2seq supports,
for tests (seconds to export; random weights, so their tokens mean nothing), and for
the model folders of models/seq2seq (make_tiny_model.py), whose tokenizers decide the
vocabulary and the special ids."""

from __future__ import annotations

import torch

FAMILIES = ("t5", "bart", "marian", "m2m_100", "whisper")

# Special token ids per family for the default vocabulary of 96 (in the order the
# family's real tokenizers have them where that is small ids; models/seq2seq gives
# its tokenizers' ids instead):
#   pad, eos, bos, start (decoder_start_token_id), forced_bos (-1: none),
#   suppress and begin_suppress (Whisper's suppressed tokens).
SPECIAL_IDS = {
    "t5": dict(pad=0, eos=1, start=0),
    "bart": dict(bos=0, pad=1, eos=2, start=2, forced_bos=0),
    "marian": dict(eos=0, pad=95, start=95),
    "m2m_100": dict(bos=0, pad=1, eos=2, start=2, forced_bos=7),  # 7: a target-language token
    "whisper": dict(eos=94, pad=95, bos=94, start=93, suppress=[5, 6], begin_suppress=[94]),
}

# Standard deviation of the weights (transformers' default: 0.02), per family: wide
# enough that the greedy tokens of tests/seq2seq's sources differ from source to source.
_INIT_STD = {"bart": 0.3, "marian": 0.2, "m2m_100": 0.3, "whisper": 0.3}

_SIZES = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
              encoder_ffn_dim=64, decoder_ffn_dim=64, dropout=0.0, attention_dropout=0.0, tie_word_embeddings=False)


def tiny_model(family: str, vocab_size: int = 96, special: dict | None = None, seed: int = 0,
               init_std: float | None = None):
    """A tiny model of `family` in eval mode over `vocab_size` tokens with the special
    ids `special` (default SPECIAL_IDS[family]), its weights drawn from `seed` with
    standard deviation `init_std` (default: _INIT_STD's; T5 draws its own).

    Its weights are drawn wider than transformers' default initialization and its output
    layer is not tied to the embeddings, so that greedy tokens depend on the source and
    the step (with the defaults, most tiny models repeat one token); final_logits_bias,
    where the family has one, is random too, so that a program leaving it out would
    differ. Its generation config sets the processors the family uses (forced BOS / EOS,
    bad words, suppressed tokens)."""
    import transformers as tf

    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose one of {', '.join(FAMILIES)}")
    ids = dict(SPECIAL_IDS[family] if special is None else special)
    init_std = _INIT_STD.get(family) if init_std is None else init_std
    tokens = dict(pad_token_id=ids["pad"], eos_token_id=ids["eos"], decoder_start_token_id=ids["start"])
    common = dict(vocab_size=vocab_size, init_std=init_std, bos_token_id=ids.get("bos"), **tokens,
                  **_SIZES)
    torch.manual_seed(seed)
    if family == "t5":
        config = tf.T5Config(vocab_size=vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2,
                             num_heads=4, relative_attention_num_buckets=8, relative_attention_max_distance=16,
                             dropout_rate=0.0, tie_word_embeddings=False, initializer_factor=1.5, **tokens)
        model = tf.T5ForConditionalGeneration(config)
    elif family == "bart":
        model = tf.BartForConditionalGeneration(tf.BartConfig(
            max_position_embeddings=64, forced_eos_token_id=ids["eos"], **common))
    elif family == "marian":
        model = tf.MarianMTModel(tf.MarianConfig(max_position_embeddings=64, decoder_vocab_size=vocab_size, **common))
        model.generation_config.bad_words_ids = [[ids["pad"]]]
        model.generation_config.renormalize_logits = True
    elif family == "m2m_100":
        model = tf.M2M100ForConditionalGeneration(tf.M2M100Config(max_position_embeddings=64, **common))
    else:
        model = tf.WhisperForConditionalGeneration(tf.WhisperConfig(
            num_mel_bins=8, max_source_positions=16, max_target_positions=32, **common))
        model.generation_config.suppress_tokens = list(ids.get("suppress", []))
        model.generation_config.begin_suppress_tokens = list(ids.get("begin_suppress", []))
    if ids.get("forced_bos", -1) >= 0:
        model.generation_config.forced_bos_token_id = ids["forced_bos"]
    model.eval()
    if hasattr(model, "final_logits_bias"):
        with torch.no_grad():
            model.final_logits_bias.normal_()
    return model
