"""Quantized language models: the tiny Llama and Qwen2 with int8 (per channel) and int4
(per group of 32, torchao's 8da4w) linear layers on XNNPACK. Their greedy tokens equal
transformers' generate(do_sample=False) on the same model quantized the same way in
eager PyTorch (pteforge.lower.quantize), for prompts of several lengths up to a full cache;
and the quantized programs are smaller than the float32 one (int4 < int8 < float32).

Activations are quantized at run time, so a float difference of one rounding (XNNPACK's
RMSNorm or attention against eager's) can put a value on the other side of a quantization
step, and the steps that follow carry it: on these tiny random models a relative change of
1e-6 in eager's norm weights moves the quantized logits by up to 0.1 (of about 3) once a
prompt is longer than a few tokens, and XNNPACK's kernels differ from eager's by that much
on some CPUs (an AVX2 EPYC) and not on others. That sensitivity is measured here, in eager,
for each model (_rounding_noise), and it is the yardstick: a prompt's logits equal eager's
within NEAR_TIE_NOISES of it (to EXACT where one rounding moves nothing: the short prompts,
which tell a float32 or a differently quantized program apart), and tokens must be equal,
or part only where eager's own top two logits were within NEAR_TIE_NOISES of it (and EXACT). A wrong
lowering moves logits far more; quantize_test checks each quantized layer exactly.
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
NEAR_TIE_NOISES = 3  # a parting's gap, in rounding noises: program and eager each move by one
PERTURBATION = 1e-6  # relative, about one float32 rounding
EXACT = 1e-3  # relative to the logits' scale: float32 sums in another order
_RUNFILES = runfiles.Create()


def _program(family: str, quantize: str) -> str:
    suffix = "" if quantize == "float32" else f"_{quantize}"
    return _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}_xnnpack{suffix}.pte")


CASES = [("llama", "int8"), ("llama", "int4"), ("qwen2", "int4")]


def _case(family: str, quantize: str):
    """Eager's model quantized as `quantize`, the program, and the prompts (1 to 50 tokens)."""
    model = quantize_lib.QUANTIZERS[quantize](copy.deepcopy(load_hf_model(
        _RUNFILES.Rlocation(f"pteforge/models/llm/tiny_{family}"))))
    lm = load_causal_lm(_program(family, quantize))
    generator = torch.Generator().manual_seed(3)
    prompts = [torch.randint(0, lm.vocab_size, (length,), generator=generator).tolist()
               for length in (1, 6, 21, 50)]
    return model, lm, prompts


@pytest.mark.parametrize("family,quantize", CASES)
def test_prompt_logits_equal_the_same_quantization_in_eager(family, quantize):
    """Exact where one rounding moves nothing (the short prompts), within its reach elsewhere."""
    model, lm, prompts = _case(family, quantize)
    for prompt in prompts:
        lm.reset()
        got = lm.prefill(prompt)
        with torch.no_grad():
            expected = model(torch.tensor([prompt])).logits[0, -1]
        allowed = _allowed(_rounding_noise(model, [prompt]), expected)
        difference = float((got - expected).abs().max())
        assert difference <= allowed, (f"{family} {quantize}, prompt of {len(prompt)} tokens: logits differ from "
                                       f"eager's by {difference:.3g}, more than {allowed:.3g}")


@pytest.mark.parametrize("family,quantize", CASES)
def test_greedy_tokens_equal_the_same_quantization_in_eager(family, quantize):
    model, lm, prompts = _case(family, quantize)
    generations = []
    for prompt in prompts:  # each run after the reset of the one before
        ids = torch.tensor([prompt])
        with torch.no_grad():
            expected = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                      max_new_tokens=MAX_SEQ_LEN - len(prompt))[0, len(prompt):].tolist()
        generations.append((prompt, expected, lm.greedy(prompt)))
    noise = _rounding_noise(model, [prompt + expected for prompt, expected, _ in generations])
    for prompt, expected, got in generations:
        if got != expected:
            _check_parting_at_a_near_tie(model, prompt, expected, got, noise,
                                         f"{family} {quantize}, prompt of {len(prompt)} tokens")


def _rounding_noise(model, sequences: list[list[int]]) -> float:
    """How far eager's logits move over `sequences` when its norm weights change by one
    rounding (PERTURBATION, two draws): the quantized model's own sensitivity to how a
    kernel rounds. Checked to stay well under the logits' scale, so a near tie stays near."""
    perturbed_models = [_perturbed(model, seed) for seed in (0, 1)]
    noise, scale = 0.0, 1.0
    with torch.no_grad():
        for sequence in sequences:
            ids = torch.tensor([sequence])
            logits = model(ids).logits  # once a sequence, against each perturbed model
            scale = max(scale, float(logits.abs().max()))
            for perturbed in perturbed_models:
                noise = max(noise, float((perturbed(ids).logits - logits).abs().max()))
    assert noise <= 0.1 * scale, f"eager's logits move by {noise:.3g} (of {scale:.3g}) for a change of one rounding"
    return noise


def _allowed(noise: float, logits: torch.Tensor) -> float:
    """How far from eager's `logits` a program may be, or a greedy parting's gap may reach:
    NEAR_TIE_NOISES roundings, plus EXACT of their scale where one rounding moves nothing
    (float32 still sums in another order)."""
    return NEAR_TIE_NOISES * noise + EXACT * max(1.0, float(logits.abs().max()))


def _perturbed(model, seed: int):
    """A copy of `model` with each norm weight changed by about one rounding (PERTURBATION)."""
    perturbed = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in perturbed.named_parameters():
            if "norm" in name:
                parameter.mul_(1 + PERTURBATION * torch.randn(parameter.shape, generator=generator))
    return perturbed


def _check_parting_at_a_near_tie(model, prompt, expected, got, noise, what):
    step = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
    assert step is not None, f"{what}: {len(got)} tokens, eager gave {len(expected)}"
    with torch.no_grad():
        logits = model(torch.tensor([prompt + expected[:step]])).logits[0, -1]
    gap = float(logits[expected[step]] - logits[got[step]])
    allowed = _allowed(noise, logits)
    assert gap <= allowed, (
        f"{what}: token {step} is {got[step]}, eager's {expected[step]} scored {gap:.3g} higher, more than "
        f"{NEAR_TIE_NOISES} x {noise:.3g} (how far one rounding moves eager's logits) + {EXACT} x scale: "
        f"not a near tie")


@pytest.mark.parametrize("family", ["llama"])
def test_fewer_bits_make_smaller_programs(family):
    sizes = {q: os.path.getsize(_program(family, q)) for q in ("float32", "int8", "int4")}
    assert sizes["int4"] < sizes["int8"] < sizes["float32"], sizes


if __name__ == "__main__":
    testing.main(__file__)
