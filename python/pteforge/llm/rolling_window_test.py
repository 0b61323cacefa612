"""A rolled sliding window exported (rolling_window.py): a tiny Mistral whose window (6)
is much shorter than max_seq_len (48) gives transformers' greedy tokens past the window
on both backends, for prompts shorter and longer than the window, each after a
reset_state; its cache holds the window's positions only."""

import pytest
import torch
import transformers

from pteforge.llm import export_causal_lm, load_causal_lm
from pteforge.llm.rolling_window import window_mask
from pteforge.support import testing

WINDOW, MAX_SEQ_LEN = 6, 48


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = transformers.MistralConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                        initializer_range=0.1, sliding_window=WINDOW, eos_token_id=None)
    return transformers.MistralForCausalLM(config).eval()


@pytest.mark.parametrize("backend", ["portable", "xnnpack"])
def test_greedy_tokens_equal_transformers_past_the_window(backend, model, tmp_path):
    program = export_causal_lm(model, MAX_SEQ_LEN, backend=backend)  # conformance: equal to eager
    shapes = {entry["name"]: entry["shape"] for entry in program.report["state"]}
    assert shapes["key_cache_0"] == shapes["value_cache_1"] == [1, 2, WINDOW, 8]
    program.save(tmp_path / "mistral.pte")
    lm = load_causal_lm(str(tmp_path / "mistral.pte"))
    for length in (1, 3, 10, 30):
        prompt = list(range(5, 5 + length))
        ids = torch.tensor([prompt])
        with torch.no_grad():
            expected = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                      max_new_tokens=MAX_SEQ_LEN - length)[0, length:].tolist()
        assert lm.greedy(prompt) == expected, f"prompt of {length} tokens"


def test_the_window_mask_sees_the_last_window_positions():
    # After 8 positions, slot j of the ring holds position 8 - 6 + ((j - 2) % 6): 6, 7, 2, 3, 4, 5.
    mask = window_mask(torch.tensor(8), 2, WINDOW)[0, 0] == 0
    ring = [6, 7, 2, 3, 4, 5]
    for row, query in enumerate((8, 9)):
        seen = [position for position, visible in zip(ring + [8, 9], mask[row].tolist()) if visible]
        assert sorted(seen) == list(range(query - WINDOW + 1, query + 1))


if __name__ == "__main__":
    testing.main(__file__)
