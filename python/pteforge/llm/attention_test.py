"""pteforge's grouped attention (attention.py) computes transformers' attention: grouped
query heads against their key/value head without repeating the cache, with an additive
mask (through pteforge::cached_attention), soft-capping and values of their own size
(as matmuls), and transformers' own sdpa for the calls it does not cover; the switch is
made on the exported copy, never on the user's model."""

import pytest
import torch

from pteforge.llm import attention
from pteforge.support import testing


def _reference(query, key, value, mask, scaling, softcap=None):
    """Attention with the key/value heads repeated to the query heads, in plain torch."""
    groups = query.shape[1] // key.shape[1]
    key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    scores = query @ key.transpose(2, 3) * scaling
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    return (torch.softmax(scores + mask, dim=-1) @ value).transpose(1, 2)


def _inputs(heads, kv_heads, q_len, kv_len, filled, head_dim=8, value_dim=8):
    generator = torch.Generator().manual_seed(heads * 100 + q_len)
    query = torch.randn(1, heads, q_len, head_dim, generator=generator)
    key = torch.randn(1, kv_heads, kv_len, head_dim, generator=generator)
    value = torch.randn(1, kv_heads, kv_len, value_dim, generator=generator)
    # Causal over the first `filled` positions of a static cache, as transformers' eager_mask.
    positions = torch.arange(kv_len)
    rows = torch.arange(filled - q_len, filled).unsqueeze(1)
    mask = torch.where(positions <= rows, 0.0, torch.finfo(torch.float32).min).view(1, 1, q_len, kv_len)
    return query, key, value, mask


@pytest.mark.parametrize("heads,kv_heads,q_len", [(9, 3, 1), (9, 3, 6), (4, 4, 5), (8, 1, 1), (6, 2, 7)])
def test_grouped_attention_equals_repeated_heads(heads, kv_heads, q_len):
    query, key, value, mask = _inputs(heads, kv_heads, q_len, kv_len=16, filled=11)
    got, weights = attention.grouped_attention(torch.nn.Module(), query, key, value, mask, scaling=0.3)
    assert weights is None and got.is_contiguous()
    torch.testing.assert_close(got, _reference(query, key, value, mask, 0.3))


@pytest.mark.parametrize("softcap, value_dim", [(2.0, 4), (None, 4), (2.0, 8)])
def test_soft_capping_and_a_value_size_of_its_own(softcap, value_dim):
    query, key, value, mask = _inputs(8, 2, 3, kv_len=12, filled=9, value_dim=value_dim)
    got, _ = attention.grouped_attention(torch.nn.Module(), query, key, value, mask, scaling=0.5, softcap=softcap)
    torch.testing.assert_close(got, _reference(query, key, value, mask, 0.5, softcap=softcap))


def test_the_cache_is_read_by_one_cached_attention_call():
    """Traced, a step's attention is one pteforge::cached_attention over the cache as it
    is: no matmul of the cache (which XNNPACK would copy every step), no repeat."""
    query, key, value, mask = _inputs(9, 3, 1, kv_len=16, filled=11)
    graph = torch.export.export(_Attention(), (query, key, value, mask), strict=True).graph
    targets = [str(node.target) for node in graph.nodes if node.op == "call_function"]
    assert targets.count("pteforge.cached_attention.default") == 1, targets
    assert not any("bmm" in t or "matmul" in t or "repeat" in t for t in targets), targets


class _Attention(torch.nn.Module):
    def forward(self, query, key, value, mask):
        return attention.grouped_attention(self, query, key, value, mask, scaling=0.3)[0]


def test_calls_it_does_not_cover_go_to_transformers_sdpa():
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    query, key, value, mask = _inputs(4, 2, 3, kv_len=8, filled=5)
    module = torch.nn.Module()
    module.num_key_value_groups, module.is_causal = 2, True
    boolean = mask == 0
    got, _ = attention.grouped_attention(module, query, key, value, boolean, scaling=0.25)
    expected, _ = sdpa_attention_forward(module, query, key, value, boolean, scaling=0.25)
    torch.testing.assert_close(got, expected)


def test_the_users_model_keeps_its_attention():
    import transformers

    from pteforge.llm.export import causal_lm_exporter

    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32)
    model = transformers.LlamaForCausalLM(config).eval()
    before = model.config._attn_implementation
    exporter = causal_lm_exporter(model, max_seq_len=16)
    assert model.config._attn_implementation == before
    assert exporter.module.model.config._attn_implementation == attention.IMPLEMENTATION


if __name__ == "__main__":
    testing.main(__file__)
