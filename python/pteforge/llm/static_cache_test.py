"""CausalLmWithCache in eager PyTorch (no export: the families' end-to-end tests are in
tests/llm): what it supports gives transformers' greedy tokens; what it does not is
refused with the reason."""

import pytest
import torch
import transformers

from pteforge import ExportError
from pteforge.llm.static_cache import CausalLmWithCache
from pteforge.support import testing

TINY = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, initializer_range=0.1)


def _model(config_class, model_class, **extra):
    torch.manual_seed(0)
    return model_class(config_class(**{**TINY, **extra})).eval()


def _eager_greedy(module: CausalLmWithCache, prompt: list[int], count: int) -> list[int]:
    with torch.no_grad():
        logits = module.prefill(torch.tensor([prompt]))
        tokens = [int(logits.argmax())]
        while len(tokens) < count:
            tokens.append(int(module.decode_step(torch.tensor([[tokens[-1]]])).argmax()))
    return tokens


def _reference(model, prompt: list[int], count: int) -> list[int]:
    """transformers' greedy tokens (stopping early at the model's EOS)."""
    ids = torch.tensor([prompt])
    out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=count)
    return out[0, len(prompt):].tolist()


def test_the_position_is_state_and_prefill_continues_a_conversation():
    model = _model(transformers.LlamaConfig, transformers.LlamaForCausalLM)
    module = CausalLmWithCache(model, max_seq_len=32)
    assert module.state_names()[-1] == "position"
    assert sorted(module.state_names()) == sorted(
        [f"{kind}_{i}" for i in range(2) for kind in ("key_cache", "value_cache", "cache_length")] + ["position"])
    with torch.no_grad():
        module.prefill(torch.tensor([[3, 4, 5]]))
        module.decode_step(torch.tensor([[6]]))
        continued = module.prefill(torch.tensor([[7, 8]]))
        whole = model(torch.tensor([[3, 4, 5, 6, 7, 8]])).logits[0, -1]
    assert int(module.position) == 6
    torch.testing.assert_close(continued[0], whole, atol=1e-5, rtol=1e-5)


def test_a_sliding_window_that_covers_max_seq_len_is_exact():
    model = _model(transformers.MistralConfig, transformers.MistralForCausalLM, sliding_window=24)
    module = CausalLmWithCache(model, max_seq_len=24)
    expected = _reference(model, [5, 9, 3, 7], 20)
    assert len(expected) > 5
    assert _eager_greedy(module, [5, 9, 3, 7], 20)[:len(expected)] == expected


# Sliding windows shorter than max_seq_len: every layer (Mistral), every other layer
# with soft-capped logits (Gemma2: local then global), the last layer (Qwen2).
WINDOWED = {
    "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM, dict(sliding_window=6)),
    "gemma2": (transformers.Gemma2Config, transformers.Gemma2ForCausalLM, dict(sliding_window=6, head_dim=8)),
    "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM,
              dict(sliding_window=6, use_sliding_window=True, max_window_layers=1)),
}


@pytest.mark.parametrize("family", sorted(WINDOWED))
def test_a_sliding_window_shorter_than_max_seq_len_rolls(family):
    config_class, model_class, extra = WINDOWED[family]
    model = _model(config_class, model_class, **extra)
    rolled = CausalLmWithCache(model, max_seq_len=48)
    assert sorted(layer.keys.shape[2] for layer in rolled.cache.layers)[0] == 6  # the window's positions only
    for prompt in ([5, 9, 3], list(range(5, 15))):  # shorter and longer than the window
        expected = _reference(model, prompt, 30)
        assert len(expected) > 10
        assert _eager_greedy(CausalLmWithCache(model, max_seq_len=48), prompt, 30)[:len(expected)] == expected


@pytest.mark.parametrize("make, max_seq_len, message", [
    (lambda: _model(transformers.Lfm2Config, transformers.Lfm2ForCausalLM, layer_types=["conv", "full_attention"],
                    block_ff_dim=64), 32,
     r"layer 0 keeps a LinearAttentionLayer cache \(not an attention key/value cache\)"),
    (lambda: _model(transformers.LlamaConfig, transformers.LlamaForCausalLM).to(torch.bfloat16), 32,
     r"weights are torch.bfloat16; pteforge.llm exports float32"),
    (lambda: _model(transformers.LlamaConfig, transformers.LlamaForCausalLM).train(), 32, "in training mode"),
    (lambda: _model(transformers.LlamaConfig, transformers.LlamaForCausalLM), 65,
     r"max_seq_len=65 exceeds the model's max_position_embeddings \(64\)"),
    (lambda: transformers.MarianMTModel(transformers.MarianConfig(
        vocab_size=64, pad_token_id=0, decoder_start_token_id=0, d_model=16, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16)).eval(), 32, "is an encoder-decoder model"),
    (lambda: torch.nn.Linear(2, 2), 32, "needs a transformers PreTrainedModel, got Linear"),
])
def test_unsupported_models_are_refused_with_the_reason(make, max_seq_len, message):
    with pytest.raises(ExportError, match=message):
        CausalLmWithCache(make(), max_seq_len)


if __name__ == "__main__":
    testing.main(__file__)
