"""Exporter factory for Silero VAD:
`python -m pteforge.export --model=models.silero_vad.export:make_exporter [--model_args=rates=16000]`.

The .pte holds models.silero_vad.model.SileroVad's entry points (process_16k,
process_8k) over one stream's state (h, c, the contexts, the last rate), all shared, and
constant methods saying which rates it has and their chunk sizes. The weights are read
from the installed silero-vad package (models/silero_vad/package.py), which the lock
file pins.
"""

from __future__ import annotations

import math
import os

import torch

from models.silero_vad import columns, int8, model, package
from pteforge import ExportError, MultiMethodExporter, Tolerance

QUANTIZATIONS = ("none", "int8")
# How the network is computed: "convolutions" as silero's model computes it (equal to it
# bit for bit in eager PyTorch; what XNNPACK runs best), or "columns" as matrix
# products (columns.py: what the portable kernels run best, 4x fewer instructions on the
# Cortex-M55). int8 weights need columns.
LAYOUTS = ("convolutions", "columns")
# The int8 program with float activations is checked against its own eager module (the
# same int8 weights and the same mixed_linear kernel): only summation order differs, and
# its sums are short.
INT8_TOLERANCE = Tolerance(atol=1e-5, rtol=1e-5)
# With int16 activations a float32 layer's sum in another order can move a value across
# a rounding boundary of the next layer's quantization: one int16 step, about 3e-5 of
# that layer's largest input, carried along by the LSTM's state (9.8e-5 seen on the
# conformance calls).
DYNAMIC_INT8_TOLERANCE = Tolerance(atol=5e-4, rtol=5e-4)


def parse_rates(text: str) -> tuple[int, ...]:
    """"16000,8000" -> (16000, 8000), refusing anything else with what is accepted."""
    try:
        rates = tuple(int(part) for part in text.split(","))
    except ValueError:
        rates = ()
    if not rates or any(rate not in model.RATES for rate in rates) or len(set(rates)) != len(rates):
        raise ExportError(f"rates={text!r}: expected a comma-separated list of {model.RATES[0]} and/or "
                          f"{model.RATES[1]} (Silero VAD's two models)")
    return rates


def test_signal(samples: int, seed: int) -> torch.Tensor:
    """A deterministic signal for the conformance calls: a chirp with a syllable-like
    envelope over low noise, so that the probabilities and the state move."""
    generator = torch.Generator().manual_seed(seed)
    t = torch.arange(samples, dtype=torch.float64)
    chirp = torch.sin(2 * math.pi * (0.01 + 0.02 * t / samples) * t)
    envelope = 0.5 + 0.5 * torch.sin(2 * math.pi * t / 1600)
    noise = 0.02 * torch.randn(samples, generator=generator, dtype=torch.float64)
    return (0.3 * chirp * envelope + noise).float()


def conformance_calls(rates: tuple[int, ...]) -> list[tuple[str, tuple[torch.Tensor]]]:
    """Consecutive chunks per rate; with both rates, switches between them too (the
    state restarts on a switch, as in the jit)."""
    calls = []
    for rate in rates + (rates[:1] if len(rates) > 1 else ()):
        size = model.CHUNK_SAMPLES[rate]
        signal = test_signal(6 * size, seed=rate + len(calls))
        calls += [(model.method_name(rate), (signal[i * size:(i + 1) * size].unsqueeze(0),)) for i in range(6)]
    return calls


def start_runtime_thread_pool_quietly() -> None:
    """Creates ExecuTorch's runtime thread pool with the process's stderr muted.

    The export's verification runs the program in ExecuTorch's Python runtime, whose
    thread pool logs five "[cpuinfo_utils.cpp:..]" lines from C++ (past Python's
    logging) when it is created, the same for every model. Creating it here first keeps
    this model's export output to pteforge's own lines; nothing else is muted.
    """
    from executorch.extension.pybindings import portable_lib

    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            portable_lib._threadpool_get_thread_count()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def make_exporter(rates: str = "16000,8000", quantization: str = "none",
                  layout: str = "convolutions", activations: str = "float") -> MultiMethodExporter:
    """The configured exporter.

    Args (strings, as --model_args gives them):
      rates: which of Silero's models to include ("16000", "8000" or both).
      quantization: "none" (float32, the jit's weights) or "int8" (int8 weights for a
        microcontroller; int8.py).
      layout: "convolutions" or "columns" (LAYOUTS).
      activations: with int8, how the products take their input (int8.ACTIVATIONS):
        "float" (the portable and quantized kernels) or "int16" (quantized on the fly,
        pteforge's operators: export with backend=cortex_m).
    """
    if quantization not in QUANTIZATIONS:
        raise ExportError(f"quantization={quantization!r}: expected one of {', '.join(QUANTIZATIONS)}")
    if layout not in LAYOUTS:
        raise ExportError(f"layout={layout!r}: expected one of {', '.join(LAYOUTS)}")
    if activations not in int8.ACTIVATIONS:
        raise ExportError(f"activations={activations!r}: expected one of {', '.join(int8.ACTIVATIONS)}")
    if quantization == "int8" and layout != "columns":
        raise ExportError("quantization=int8 needs layout=columns (int8 weights are matrix products)")
    if activations != "float" and quantization != "int8":
        raise ExportError(f"activations={activations} is for int8 weights (quantization=int8)")
    rate_list = parse_rates(rates)
    try:
        weights = model.load_jit_weights(package.find())
        module = model.SileroVad(weights, rate_list)
    except package.ModelNotFound as error:
        raise ExportError(str(error)) from None
    except (KeyError, RuntimeError) as error:  # a missing weight, or one of another shape
        raise ExportError(f"{package.find()} is not Silero VAD v6 as this exporter knows it: {error}") from None
    name = "silero_vad" if len(rate_list) > 1 else f"silero_vad_{rate_list[0] // 1000}k"
    if quantization == "int8":
        module = int8.quantize(module, activations)
        name += "_int8"
    elif layout == "columns":
        module = columns.as_columns(module)

    start_runtime_thread_pool_quietly()
    exporter = MultiMethodExporter(module.eval(), name=name)
    exporter.shared_state(*module.state_names())
    for rate in rate_list:
        exporter.method(model.method_name(rate), (torch.zeros(1, model.CHUNK_SAMPLES[rate]),))
    exporter.constant("sample_rates", list(rate_list))
    exporter.constant("chunk_samples", [model.CHUNK_SAMPLES[rate] for rate in rate_list])
    exporter.call_sequence(conformance_calls(rate_list))
    if quantization == "int8":
        exporter.conformance_tolerance(INT8_TOLERANCE if activations == "float" else DYNAMIC_INT8_TOLERANCE)
    return exporter
