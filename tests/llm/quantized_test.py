"""Quantized language models: the tiny Llama and Qwen2 with int8 (per channel) and int4
(per group of 32, torchao's 8da4w) linear layers on XNNPACK. Their greedy tokens equal
transformers' generate(do_sample=False) on the same model quantized the same way in
eager PyTorch (pteforge.lower.quantize), for prompts of several lengths up to a full cache;
and the quantized programs are smaller than the float32 one (int4 < int8 < float32).

Activations are quantized at run time, and where eager PyTorch and XNNPACK round a value
to different sides of a quantization step, a logit moves by about a step (1e-3 here):
at a near tie that picks another token, and the generations part there. So tokens must
be equal, or part only where eager's own top two logits were within NEAR_TIE of each
other (relative to the logits' scale); a wrong lowering moves logits far more.
"""

import copy
import os
import sys

import pytest
import torch
from runfiles import runfiles

from pteforge.llm import load_causal_lm
from pteforge.llm.export import load_hf_model
from pteforge.lower import quantize as quantize_lib
from pteforge.support import testing

MAX_SEQ_LEN = 64  # as models/llm/BUILD.bazel exports them
NEAR_TIE = 0.01
_RUNFILES = runfiles.Create()


def _program(family: str, quantize: str) -> str:
    suffix = "" if quantize == "float32" else f"_{quantize}"
    return _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}_xnnpack{suffix}.pte")


CASES = [("llama", "int8"), ("llama", "int4"), ("qwen2", "int4")]


@pytest.mark.parametrize("family,quantize", CASES)
def test_greedy_tokens_equal_the_same_quantization_in_eager(family, quantize):
    model = quantize_lib.QUANTIZERS[quantize](copy.deepcopy(load_hf_model(
        _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}"))))
    lm = load_causal_lm(_program(family, quantize))
    vocab = lm.vocab_size
    generator = torch.Generator().manual_seed(3)
    for length in (1, 6, 21, 50):  # each after the reset of the one before
        prompt = torch.randint(0, vocab, (length,), generator=generator).tolist()
        ids = torch.tensor([prompt])
        with torch.no_grad():
            expected = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                      max_new_tokens=MAX_SEQ_LEN - length)[0, length:].tolist()
        got = lm.greedy(prompt)
        if got != expected:
            _check_parting_at_a_near_tie(model, prompt, expected, got, f"{family} {quantize}, prompt of {length} tokens")


def _check_parting_at_a_near_tie(model, prompt, expected, got, what):
    step = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
    assert step is not None, f"{what}: {len(got)} tokens, eager gave {len(expected)}"
    with torch.no_grad():
        logits = model(torch.tensor([prompt + expected[:step]])).logits[0, -1]
    gap = float(logits[expected[step]] - logits[got[step]])
    scale = max(1.0, float(logits.abs().max()))
    assert gap <= NEAR_TIE * scale, (f"{what}: token {step} is {got[step]}, eager's {expected[step]} scored {gap:.3g} "
                                     f"higher (logits up to {scale:.3g}): not a near tie")


@pytest.mark.parametrize("family", ["llama"])
def test_fewer_bits_make_smaller_programs(family):
    sizes = {q: os.path.getsize(_program(family, q)) for q in ("float32", "int8", "int4")}
    assert sizes["int4"] < sizes["int8"] < sizes["float32"], sizes


if __name__ == "__main__":
    testing.main(__file__)
