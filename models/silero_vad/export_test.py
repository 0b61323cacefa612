"""The exported programs (Bazel's pte_export targets), run in ExecuTorch's Python
runtime, against silero's own model: probabilities per backend within a stated bound of
the jit's, the same segments as silero's utility, state restarting as the jit's does.

The bounds are measured, not chosen: the float32 programs differ from the jit by
float rounding (the portable kernels sum convolutions in another order; XNNPACK uses
FMA), carried along by the LSTM's state. The int8 program is compared with the float32
one by segments, and its probability differences are printed.
"""

import functools

import executorch.kernels.quantized  # noqa: F401  registers mixed_linear with the runtime (int8)
import pytest
from runfiles import runfiles

import pteforge
from models.silero_vad import model
from pteforge.support import testing
from tests.vad import audio_files

# Largest |program - jit| allowed per program, over every chunk of the test audio.
BOUNDS = {"silero_vad.pte": 2e-4, "silero_vad_xnnpack.pte": 2e-4, "silero_vad_16k.pte": 2e-4,
          "silero_vad_16k_cmsis_nn.pte": 2e-4}
SPEECH = ["en_us_16k.wav", "de_16k_noisy.wav", "pt_16k.wav", "long_16k.wav", "en_gb_8k.wav", "fr_8k_noisy.wav",
          "es_8k.wav"]


@functools.cache
def _program(name: str) -> pteforge.LoadedProgram:
    return pteforge.load(runfiles.Create().Rlocation(f"pteforge/models/silero_vad/{name}"))


def _probabilities(program, audio, rate) -> list[float]:
    program.reset_state()
    return [program.run(model.method_name(rate), chunk)[0].item() for chunk in audio_files.chunks(audio, rate)]


@pytest.mark.parametrize("program_name", sorted(BOUNDS))
def test_probabilities_and_segments_match_the_jit(program_name):
    program = _program(program_name)
    rates = [int(r) for r in program.run("sample_rates")]
    worst = 0.0
    for name in SPEECH:
        audio, rate = audio_files.read_wav(audio_files.path(name))
        if rate not in rates:
            continue
        ours = _probabilities(program, audio, rate)
        theirs = audio_files.silero_probabilities(audio, rate)
        difference = max(abs(a - b) for a, b in zip(ours, theirs))
        worst = max(worst, difference)
        assert difference <= BOUNDS[program_name], f"{name}: max |program - jit| = {difference}"
        segments = audio_files.silero_segments(audio, rate)
        assert segments, f"{name}: silero finds no speech"
        assert audio_files.silero_segments(audio, rate, model=audio_files.Recorded(ours)) == segments, name
    print(f"{program_name}: max |program - jit| = {worst:.2e}")


def test_the_program_restarts_on_a_rate_switch_and_on_reset_state():
    program = _program("silero_vad.pte")
    jit = audio_files.silero_model()
    audio16, _ = audio_files.read_wav(audio_files.path("en_us_16k.wav"))
    audio8, _ = audio_files.read_wav(audio_files.path("en_gb_8k.wav"))
    chunks16, chunks8 = audio_files.chunks(audio16, 16000), audio_files.chunks(audio8, 8000)
    for _ in range(2):  # the second time after reset_state
        program.reset_state()
        jit.reset_states()
        for i in range(40, 90):
            rate, chunk = (16000, chunks16[i]) if (i // 6) % 2 else (8000, chunks8[i])
            ours = program.run(model.method_name(rate), chunk)[0].item()
            assert abs(ours - jit(chunk, rate).item()) <= 2e-4, f"call {i} at {rate} Hz"
        state = program.state()
        assert state["last_rate"].item() in (8000, 16000) and state["h"].abs().sum() > 0


@pytest.mark.parametrize("int8_name", ["silero_vad_16k_int8.pte", "silero_vad_16k_int8_cmsis_nn.pte"])
def test_int8_finds_the_float32_segments(int8_name):
    float32, int8 = _program("silero_vad_16k.pte"), _program(int8_name)
    for name in ["en_us_16k.wav", "de_16k_noisy.wav", "pt_16k.wav", "long_16k.wav", "silence_16k.wav"]:
        audio, rate = audio_files.read_wav(audio_files.path(name))
        reference, quantized = _probabilities(float32, audio, rate), _probabilities(int8, audio, rate)
        differences = [abs(a - b) for a, b in zip(reference, quantized)]
        print(f"{name}: int8 - float32 max {max(differences):.4f}, mean {sum(differences) / len(differences):.5f}")
        assert (audio_files.silero_segments(audio, rate, model=audio_files.Recorded(quantized))
                == audio_files.silero_segments(audio, rate, model=audio_files.Recorded(reference))), name


if __name__ == "__main__":
    testing.main(__file__)
