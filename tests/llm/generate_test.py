"""The C++ generate tool (//cc/tools:generate) on the tiny models of //models/llm: its
greedy tokens equal the Python runtime's (load_causal_lm, itself equal to transformers:
causal_lm_test.py), its text is the Python tokenizer's decoding of them, it stops at
an EOS id, at --max_new_tokens and at max_seq_len, sampling is reproducible for a
seed, and bad input is a clear error with a non-zero exit and no output.
"""

import json
import os
import random
import subprocess

import pytest
import torch
from runfiles import runfiles
from tokenizers import Tokenizer

from pteforge.llm import load_causal_lm
from pteforge.llm.export import load_hf_model
from pteforge.support import testing

_RUNFILES = runfiles.Create()
GENERATE = _RUNFILES.Rlocation("pteforge/cc/tools/generate")
NOT_A_LANGUAGE_MODEL = _RUNFILES.Rlocation("pteforge/models/stateful.pte")
MAX_SEQ_LEN = 64

# One program per family, both backends among them.
PROGRAMS = [("llama", "portable"), ("qwen2", "xnnpack"), ("gpt2", "xnnpack"), ("phi", "portable")]
# And a quantized one: XNNPACK's int8 linears and ExecuTorch's quantized embedding kernel.
QUANTIZED = [("llama", "xnnpack_int8")]


def pte(family: str, backend: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}_{backend}.pte")


def model_dir(family: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}")


def generate(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([GENERATE, *args], input=stdin, capture_output=True, text=True, timeout=300)


def ids_of(result: subprocess.CompletedProcess) -> list[int]:
    assert result.returncode == 0, result.stderr
    return [int(word) for word in result.stdout.split()]


def stats_of(result: subprocess.CompletedProcess) -> dict:
    return json.loads(result.stderr.strip().splitlines()[-1])


def random_prompts(vocab: int, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(vocab) for _ in range(length)] for length in rng.sample(range(1, 50), count)]


@pytest.mark.parametrize("family, backend", PROGRAMS + QUANTIZED)
def test_greedy_ids_equal_the_python_runtime(family, backend):
    lm = load_causal_lm(pte(family, backend))
    for prompt in random_prompts(lm.vocab_size, 4, seed=len(family)):
        result = generate(f"--model={pte(family, backend)}", "--greedy", f"--ids={' '.join(map(str, prompt))}")
        assert ids_of(result) == lm.greedy(prompt), prompt


@pytest.mark.parametrize("family, backend", PROGRAMS)
def test_text_is_the_tokenizers_decoding_of_the_greedy_tokens(family, backend):
    tokenizer = Tokenizer.from_file(os.path.join(model_dir(family), "tokenizer.json"))
    lm = load_causal_lm(pte(family, backend))
    prompt = "The weather is nice today, and the café is open."
    expected = tokenizer.decode(lm.greedy(tokenizer.encode(prompt).ids), skip_special_tokens=True) + "\n"
    as_argument = generate(f"--model={pte(family, backend)}", "--greedy", *prompt.split(" "))
    assert as_argument.returncode == 0, as_argument.stderr
    assert as_argument.stdout == expected
    from_stdin = generate(f"--model={pte(family, backend)}", "--greedy", stdin=prompt)
    assert from_stdin.stdout == expected


def _prompt_ending_in_eos(family: str) -> list[int]:
    """A 3-token prompt after which the model's greedy choice is an EOS id, found
    among 4,000 random ones in one batch through transformers."""
    model = load_hf_model(model_dir(family))
    eos = model.generation_config.eos_token_id
    eos = eos if isinstance(eos, list) else [eos]
    candidates = torch.randint(0, model.config.vocab_size, (4000, 3), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        choices = model(candidates).logits[:, -1].argmax(-1)
    hits = [i for i, token in enumerate(choices.tolist()) if token in eos]
    assert hits, "no prompt among 4,000 makes the model choose an EOS id"
    return candidates[hits[0]].tolist()


@pytest.mark.parametrize("family, backend", [("gpt2", "xnnpack"), ("qwen2", "xnnpack")])
def test_stops_at_an_eos_id(family, backend):
    prompt = _prompt_ending_in_eos(family)
    result = generate(f"--model={pte(family, backend)}", "--greedy", "--stats", f"--ids={' '.join(map(str, prompt))}")
    tokens = ids_of(result)
    assert tokens == load_causal_lm(pte(family, backend)).greedy(prompt)
    assert stats_of(result)["stop"] == "eos" and tokens[-1] in load_causal_lm(pte(family, backend)).eos_token_ids


def test_stops_at_max_new_tokens_and_at_max_seq_len():
    program = pte("llama", "portable")
    lm = load_causal_lm(program)
    prompt = next(p for p in random_prompts(lm.vocab_size, 20, seed=3) if len(lm.greedy(p)) == MAX_SEQ_LEN - len(p))
    ids = f"--ids={' '.join(map(str, prompt))}"
    short = generate(f"--model={program}", "--greedy", "--stats", "--max_new_tokens=3", ids)
    assert ids_of(short) == lm.greedy(prompt)[:3] and stats_of(short)["stop"] == "max_new_tokens"
    full = generate(f"--model={program}", "--greedy", "--stats", ids)
    assert len(ids_of(full)) == MAX_SEQ_LEN - len(prompt)
    stats = stats_of(full)
    assert stats["stop"] == "max_seq_len"
    assert "generate: stopped at the model's max_seq_len of 64 tokens" in full.stderr
    assert stats["prompt_tokens"] == len(prompt) and stats["generated_tokens"] == MAX_SEQ_LEN - len(prompt)
    assert stats["decode_steps"] == stats["generated_tokens"] - 1
    for key in ("prefill_tokens_per_s", "decode_tokens_per_s", "time_to_first_token_ms", "peak_rss_mb",
                "planned_bytes"):
        assert stats[key] > 0, key


def test_sampling_is_reproducible_for_a_seed():
    # qwen2's generation config samples (temperature 0.7, top_k 20, top_p 0.8).
    program, prompt = pte("qwen2", "xnnpack"), "--ids=5 6 7 8 9"
    first = ids_of(generate(f"--model={program}", "--seed=11", prompt))
    assert first == ids_of(generate(f"--model={program}", "--seed=11", prompt))
    others = [ids_of(generate(f"--model={program}", f"--seed={seed}", prompt)) for seed in (12, 13)]
    assert any(other != first for other in others)
    greedy = ids_of(generate(f"--model={program}", "--greedy", prompt))
    assert first != greedy


@pytest.mark.parametrize("args, status, message", [
    (["--model=LLAMA", " ".join(["word"] * 80)], 1, "tokens; this model holds max_seq_len=64 tokens"),
    (["--model=LLAMA", "--ids="], 1, "the prompt is empty"),
    (["--model=LLAMA", "--ids=1 99999"], 1, "token id 99999 is outside the vocabulary"),
    (["--model=LLAMA", "--ids=1 x"], 2, "--ids: 'x' is not a token id"),
    (["--model=LLAMA", "--top_k=5", "hello"], 2, "apply to sampling: add --sample"),
    (["--model=LLAMA", "--sample", "--top_p=2", "hello"], 2, "top_p 2: must be in (0, 1]"),
    (["--model=LLAMA", "--frobnicate", "hello"], 2, "frobnicate"),
    (["hello"], 2, "--model=model.pte is required"),
    (["--model=/no/such.pte", "hello"], 1, "/no/such.pte"),
    ([f"--model={NOT_A_LANGUAGE_MODEL}", "hello"], 1, "is not a causal language model"),
])
def test_bad_input_is_a_clear_error_with_no_output(args, status, message):
    args = [arg.replace("LLAMA", pte("llama", "portable")) for arg in args]
    result = generate(*args)
    assert result.returncode == status, result.stderr
    assert message in result.stderr and result.stderr.startswith("generate: error: ")
    assert result.stdout == ""


if __name__ == "__main__":
    testing.main(__file__)
