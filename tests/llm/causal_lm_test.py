"""A tiny random causal LM of one family (models/llm), exported by pteforge.llm on the
portable and XNNPACK backends: the .pte's greedy tokens (pteforge.load, through
load_causal_lm) equal transformers' generate(do_sample=False) on the same model folder,
for prompts of several lengths, each after a reset_state, up to max_seq_len; past the
limit a call is a clear error, not a wrap-around.

    causal_lm_test.py --family=llama     (llama, qwen2, gpt2, phi)
"""

import os
import sys

import pytest
import torch
from runfiles import runfiles
from tokenizers import Tokenizer

from pteforge.llm import CacheFullError, load_causal_lm
from pteforge.llm.export import load_hf_model
from pteforge.run.runtime import ExecutorchError
from pteforge.support import testing

FAMILY = next(arg.split("=", 1)[1] for arg in sys.argv if arg.startswith("--family="))
BACKENDS = ("portable", "xnnpack")
MAX_SEQ_LEN = 64  # as models/llm/BUILD.bazel exports them

_RUNFILES = runfiles.Create()
MODEL_DIR = _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{FAMILY}")
PTE = {backend: _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{FAMILY}_{backend}.pte") for backend in BACKENDS}
CORPUS = _RUNFILES.Rlocation("pteforge/models/bergamot/corpus/sentences_en.txt")


@pytest.fixture(scope="module")
def model():
    return load_hf_model(MODEL_DIR)


@pytest.fixture(scope="module")
def prompts():
    """Token ids of texts encoded by the model's own tokenizer: 1 token, a few, about a
    third of the cache, and many long ones that leave 2 to 12 positions (to reach the
    limit without an EOS on the way)."""
    tokenizer = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    with open(CORPUS, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    short = [tokenizer.encode("Hello").ids[:1], tokenizer.encode("The weather is nice today.").ids,
             tokenizer.encode(" ".join(lines[:3])).ids[:20]]
    long_text = tokenizer.encode(" ".join(lines)).ids
    long = [long_text[start:start + MAX_SEQ_LEN - room] for start, room in zip(range(0, 800, 100), range(2, 13))]
    return short + long


def reference(model, prompt: list[int]) -> list[int]:
    """transformers' greedy generation, at most MAX_SEQ_LEN tokens with the prompt."""
    ids = torch.tensor([prompt])
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                             max_new_tokens=MAX_SEQ_LEN - len(prompt))
    return out[0, len(prompt):].tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_greedy_tokens_equal_transformers(backend, model, prompts):
    lm = load_causal_lm(PTE[backend])
    assert lm.max_seq_len == MAX_SEQ_LEN
    reached_the_limit = 0
    for prompt in prompts + prompts[:2]:  # each after the reset of the one before
        expected = reference(model, prompt)
        assert lm.greedy(prompt) == expected, f"prompt of {len(prompt)} tokens: {prompt}"
        reached_the_limit += len(prompt) + len(expected) == MAX_SEQ_LEN
    # Generations that stopped only because the cache was full (not at an EOS).
    assert reached_the_limit >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_past_the_limit_is_an_error_and_reset_recovers(backend, model, prompts):
    lm = load_causal_lm(PTE[backend])
    prompt = prompts[-1]
    logits = lm.prefill(prompt)
    while lm.position < MAX_SEQ_LEN:
        logits = lm.decode_step(int(torch.argmax(logits)))
    with pytest.raises(CacheFullError, match=r"max_seq_len=64 tokens: 64 are used and 1 more do not fit"):
        lm.decode_step(0)
    # The program itself refuses to write past its cache: the cache update's bounds check
    # fails the call (InvalidArgument, 0x12), as ExecuTorch's log says ("Index 64 out of range").
    with pytest.raises(ExecutorchError, match="failed with error 0x12"):
        lm.program.run("decode_step", torch.tensor([[0]]))
    assert lm.greedy(prompts[1]) == reference(model, prompts[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_prefill_of_max_seq_len_tokens_gives_transformers_logits(backend, model, prompts):
    lm = load_causal_lm(PTE[backend])
    prompt = (prompts[-1] * 2)[:MAX_SEQ_LEN]
    with torch.no_grad():
        expected = model(torch.tensor([prompt])).logits[0, -1]
    torch.testing.assert_close(lm.prefill(prompt), expected, atol=1e-4, rtol=1e-4)


def test_the_program_carries_the_tokenizer_and_generation_defaults(model):
    lm = load_causal_lm(PTE["portable"])
    with open(os.path.join(MODEL_DIR, "tokenizer.json"), "rb") as f:
        assert lm.tokenizer_json() == f.read()
    eos = model.generation_config.eos_token_id
    assert lm.eos_token_ids == tuple(eos if isinstance(eos, list) else [eos])
    assert lm.vocab_size == model.config.vocab_size
    assert lm.repetition_penalty == (model.generation_config.repetition_penalty or 1.0)


if __name__ == "__main__":
    testing.main(__file__)
