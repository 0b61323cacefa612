"""Tiny random transformers encoder-decoders, one per family pteforge.seq2seq supports,
for tests (seconds to export; random weights, so their tokens mean nothing)."""

from __future__ import annotations

import torch

FAMILIES = ("t5", "bart", "marian", "m2m_100", "whisper")

# Standard deviation of the weights (transformers' default: 0.02), per family: wide
# enough that the greedy tokens of tests/seq2seq's sources differ from source to source.
_INIT_STD = {"bart": 0.3, "marian": 0.2, "m2m_100": 0.3, "whisper": 0.3}

_COMMON = dict(vocab_size=96, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, dropout=0.0,
               attention_dropout=0.0, tie_word_embeddings=False)


def tiny_model(family: str, seed: int = 0):
    """A tiny model of `family` in eval mode. Its weights are drawn wider than
    transformers' default initialization and its output layer is not tied to the
    embeddings, so that greedy tokens depend on the source and the step (with the
    defaults, most tiny models repeat one token); final_logits_bias, where the family
    has one, is random too, so that a program leaving it out would differ. Its
    generation config sets the processors the family uses (forced BOS / EOS, bad words,
    suppressed tokens)."""
    import transformers as tf

    torch.manual_seed(seed)
    if family == "t5":
        config = tf.T5Config(vocab_size=96, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2,
                             num_heads=4, relative_attention_num_buckets=8, relative_attention_max_distance=16,
                             dropout_rate=0.0, tie_word_embeddings=False, initializer_factor=3.0,
                             decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
        model = tf.T5ForConditionalGeneration(config)
    elif family == "bart":
        model = tf.BartForConditionalGeneration(tf.BartConfig(
            init_std=_INIT_STD["bart"], max_position_embeddings=64, pad_token_id=1, bos_token_id=0, eos_token_id=2,
            decoder_start_token_id=2, forced_eos_token_id=2, **_COMMON))
        model.generation_config.forced_bos_token_id = 0
    elif family == "marian":
        model = tf.MarianMTModel(tf.MarianConfig(
            init_std=_INIT_STD["marian"], max_position_embeddings=64, pad_token_id=95, eos_token_id=0,
            decoder_start_token_id=95, decoder_vocab_size=96, **_COMMON))
        model.generation_config.bad_words_ids = [[95]]
        model.generation_config.renormalize_logits = True
    elif family == "m2m_100":
        model = tf.M2M100ForConditionalGeneration(tf.M2M100Config(
            init_std=_INIT_STD["m2m_100"], max_position_embeddings=64, pad_token_id=1, bos_token_id=0, eos_token_id=2,
            decoder_start_token_id=2, **_COMMON))
        model.generation_config.forced_bos_token_id = 7  # a target-language token
    elif family == "whisper":
        model = tf.WhisperForConditionalGeneration(tf.WhisperConfig(
            init_std=_INIT_STD["whisper"], num_mel_bins=8, max_source_positions=16, max_target_positions=32,
            pad_token_id=95, bos_token_id=94, eos_token_id=94, decoder_start_token_id=93, **_COMMON))
        model.generation_config.suppress_tokens = [5, 6]
        model.generation_config.begin_suppress_tokens = [94]
    else:
        raise ValueError(f"unknown family {family!r}; choose one of {', '.join(FAMILIES)}")
    model.eval()
    if hasattr(model, "final_logits_bias"):
        with torch.no_grad():
            model.final_logits_bias.normal_()
    return model
