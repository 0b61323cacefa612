"""Every family pteforge.seq2seq lists (families.SUPPORTED) through Seq2SeqWithCache in
eager PyTorch: encode, then one decode_step per position, gives the logits of the
model's own full forward without a cache (teacher-forced over 8 positions, two sources
of different lengths, each read by two decoder rows as beams read it, and one source
read by two rows in a program for one source at a time; and rows that take each other's
histories midway, as beam search's reorder_cache makes them), so the cache
layers, the cross-attention keys and values computed in encode, the attention over the
cache and the masks are what each family's forward expects. Exports of
the five main families are tested end to end in tests/seq2seq."""

import pytest
import torch
import transformers as tf

from pteforge.seq2seq import families
from pteforge.seq2seq.cache import with_cache
from pteforge.support import testing

_BART_LIKE = dict(vocab_size=96, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                  decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, dropout=0.0,
                  attention_dropout=0.0, max_position_embeddings=64, pad_token_id=1, eos_token_id=2,
                  decoder_start_token_id=2, bos_token_id=0)
_T5_LIKE = dict(vocab_size=96, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, dropout_rate=0.0,
                decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)

MODELS = {
    "t5": lambda: tf.T5ForConditionalGeneration(tf.T5Config(**_T5_LIKE)),
    "mt5": lambda: tf.MT5ForConditionalGeneration(tf.MT5Config(**_T5_LIKE)),
    "umt5": lambda: tf.UMT5ForConditionalGeneration(tf.UMT5Config(**_T5_LIKE)),
    "bart": lambda: tf.BartForConditionalGeneration(tf.BartConfig(**_BART_LIKE)),
    "mbart": lambda: tf.MBartForConditionalGeneration(tf.MBartConfig(**_BART_LIKE)),
    "plbart": lambda: tf.PLBartForConditionalGeneration(tf.PLBartConfig(**_BART_LIKE)),
    "marian": lambda: tf.MarianMTModel(tf.MarianConfig(**_BART_LIKE)),
    "m2m_100": lambda: tf.M2M100ForConditionalGeneration(tf.M2M100Config(**_BART_LIKE)),
    "pegasus": lambda: tf.PegasusForConditionalGeneration(tf.PegasusConfig(**_BART_LIKE)),
    "blenderbot": lambda: tf.BlenderbotForConditionalGeneration(tf.BlenderbotConfig(**_BART_LIKE)),
    "blenderbot-small": lambda: tf.BlenderbotSmallForConditionalGeneration(tf.BlenderbotSmallConfig(**_BART_LIKE)),
    "whisper": lambda: tf.WhisperForConditionalGeneration(tf.WhisperConfig(
        num_mel_bins=8, max_source_positions=16, max_target_positions=32,
        **{k: v for k, v in _BART_LIKE.items() if k != "max_position_embeddings"})),
}


def test_every_listed_family_is_tested():
    assert sorted(MODELS) == sorted(families.SUPPORTED)


@pytest.mark.parametrize("max_rows, max_sources, rows", [
    # Rows 0 and 2 read source 0, rows 1 and 3 source 1 (rows 2 and 3 step what rows 0
    # and 1 step); the program's fifth row and third source stay unused.
    (5, 3, [0, 1, 0, 1]),
    # One source at a time, read by two rows (beams).
    (2, 1, [0, 0]),
])
@pytest.mark.parametrize("family", sorted(MODELS))
def test_cached_steps_equal_the_full_forward(family, max_rows, max_sources, rows):
    torch.manual_seed(0)
    model = MODELS[family]().eval()
    assert model.config.model_type == family
    if hasattr(model, "final_logits_bias"):
        with torch.no_grad():
            model.final_logits_bias.normal_()
    module = with_cache(model, max_rows=max_rows, max_source=16, max_target=12, max_sources=max_sources)
    start = model.config.decoder_start_token_id
    sources = max(rows) + 1
    decoder_ids = torch.cat([torch.full((sources, 1), start), torch.randint(3, 90, (sources, 7))], dim=1)
    rows = torch.tensor(rows)
    ones = lambda t: torch.ones(len(rows), t, dtype=torch.int64)  # noqa: E731
    with torch.no_grad():
        if family == "whisper":
            features = torch.randn(sources, 8, 32)
            expected = model(input_features=features, decoder_input_ids=decoder_ids, use_cache=False).logits
            module.encode(features, rows)
            steps = [module.decode_step(decoder_ids[rows, t:t + 1], ones(t + 1)) for t in range(8)]
        else:
            ids = torch.randint(3, 90, (sources, 7))
            mask = torch.ones(sources, 7, dtype=torch.int64)
            mask[-1, 5:] = 0
            expected = model(input_ids=ids, attention_mask=mask, decoder_input_ids=decoder_ids, use_cache=False).logits
            module.encode(ids, mask, rows)
            steps = [module.decode_step(decoder_ids[rows, t:t + 1], mask[rows], ones(t + 1)) for t in range(8)]
    error = (torch.stack(steps, dim=1) - expected[rows]).abs().max().item()
    assert error < 5e-5 * expected.abs().max().item(), f"{family}: max abs difference {error:.3g}"


@pytest.mark.parametrize("family", ["t5", "bart", "whisper"])
def test_steps_after_a_reorder_continue_the_histories_they_took(family):
    """Three rows step their own sequences for four positions, then reorder_cache([2, 2,
    0]): rows 0 and 1 continue sequence 2's first four tokens, row 2 sequence 0's, each
    with tokens of its own. Every step's logits are the full forward's of the sequence
    the row has by then."""
    torch.manual_seed(1)
    model = MODELS[family]().eval()
    module = with_cache(model, max_rows=4, max_source=16, max_target=12, max_sources=1)
    start = model.config.decoder_start_token_id
    before = torch.cat([torch.full((3, 1), start), torch.randint(3, 90, (3, 3))], dim=1)
    after = torch.randint(3, 90, (3, 4))
    taken = torch.tensor([2, 2, 0])
    rows = torch.zeros(3, dtype=torch.int64)
    ones = lambda t: torch.ones(3, t, dtype=torch.int64)  # noqa: E731
    with torch.no_grad():
        if family == "whisper":
            features = torch.randn(1, 8, 32)
            source = dict(input_features=features.expand(3, -1, -1))
            module.encode(features, rows)
            step = lambda tokens, t: module.decode_step(tokens, ones(t))  # noqa: E731
        else:
            ids = torch.randint(3, 90, (1, 7))
            mask = torch.ones(1, 7, dtype=torch.int64)
            source = dict(input_ids=ids.expand(3, -1), attention_mask=mask.expand(3, -1))
            module.encode(ids, mask, rows)
            step = lambda tokens, t: module.decode_step(tokens, mask.expand(3, -1), ones(t))  # noqa: E731
        steps = [step(before[:, t:t + 1], t + 1) for t in range(4)]
        module.reorder_cache(taken)
        steps += [step(after[:, t:t + 1], 5 + t) for t in range(4)]
        first = model(**source, decoder_input_ids=before, use_cache=False).logits
        second = model(**source, decoder_input_ids=torch.cat([before[taken], after], dim=1), use_cache=False).logits
    expected = torch.cat([first, second[:, 4:]], dim=1)
    error = (torch.stack(steps, dim=1) - expected).abs().max().item()
    assert error < 5e-5 * expected.abs().max().item(), f"{family}: max abs difference {error:.3g}"


if __name__ == "__main__":
    testing.main(__file__)
