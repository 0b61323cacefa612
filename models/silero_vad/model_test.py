"""The eager module (model.py) equals silero's own model (the jit load_silero_vad()
loads) exactly, chunk for chunk, at 16 and 8 kHz, across rate switches and resets; the
same network as matrix products (columns.py) differs by float rounding only, and with
int8 weights (int8.py) stays close."""

import pytest
import torch

from models.silero_vad import columns, int8, model, package
from pteforge.support import testing
from tests.vad import audio_files

SPEECH = ["en_us_16k.wav", "de_16k_noisy.wav", "en_gb_8k.wav", "fr_8k_noisy.wav"]


def _module(rates=model.RATES) -> model.SileroVad:
    return model.SileroVad(model.load_jit_weights(package.find()), rates).eval()


def _run(module, chunks, rate):
    with torch.no_grad():
        return torch.cat([getattr(module, model.method_name(rate))(chunk) for chunk in chunks])


def _jit(chunks, rate):
    jit = audio_files.silero_model()
    with torch.no_grad():
        return torch.cat([jit(chunk, rate) for chunk in chunks])


def test_every_chunk_equals_the_jit_exactly():
    module = _module()
    for name in SPEECH:
        audio, rate = audio_files.read_wav(audio_files.path(name))
        chunks = audio_files.chunks(audio, rate)
        module.reset_states()
        audio_files.silero_model().reset_states()
        ours, theirs = _run(module, chunks, rate), _jit(chunks, rate)
        assert ours.shape == theirs.shape == (len(chunks), 1)
        assert torch.equal(ours, theirs), f"{name}: max difference {(ours - theirs).abs().max().item()}"
        assert theirs.max() > 0.9 and theirs.min() < 0.1, f"{name}: expected speech and silence"


def test_a_rate_switch_restarts_the_state_as_the_jit_does():
    module = _module()
    jit = audio_files.silero_model()
    module.reset_states()
    jit.reset_states()
    audio16, _ = audio_files.read_wav(audio_files.path("en_us_16k.wav"))
    audio8, _ = audio_files.read_wav(audio_files.path("en_gb_8k.wav"))
    chunks16, chunks8 = audio_files.chunks(audio16, 16000), audio_files.chunks(audio8, 8000)
    switched = 0
    with torch.no_grad():
        for i in range(40, 100):
            rate, chunk = (16000, chunks16[i]) if (i // 7) % 2 else (8000, chunks8[i])
            ours, theirs = getattr(module, model.method_name(rate))(chunk), jit(chunk, rate)
            assert torch.equal(ours, theirs), f"call {i} at {rate} Hz: {ours.item()} != {theirs.item()}"
            switched += i % 7 == 0
    assert switched >= 8


def test_reset_states_gives_a_fresh_stream():
    module = _module((16000,))
    audio, rate = audio_files.read_wav(audio_files.path("pt_16k.wav"))
    chunks = audio_files.chunks(audio, rate)
    first = _run(module, chunks[:60], rate)
    module.reset_states()
    assert all(torch.count_nonzero(getattr(module, name)) == 0 for name in module.state_names())
    assert torch.equal(_run(module, chunks[:60], rate), first)


def test_as_matrix_products_the_network_differs_by_rounding_only():
    exact, products = _module(), columns.as_columns(_module())
    for name in SPEECH:
        audio, rate = audio_files.read_wav(audio_files.path(name))
        chunks = audio_files.chunks(audio, rate)
        exact.reset_states()
        products.reset_states()
        difference = (_run(exact, chunks, rate) - _run(products, chunks, rate)).abs().max().item()
        assert 0 < difference < 1e-4, f"{name}: {difference}"


def test_the_stft_by_an_fft_is_the_basis_product_within_rounding():
    rate_model = _module((16000,)).models["16000"]
    basis, fft = columns.BasisSpectrum(rate_model, columns.float_layers), columns.FftSpectrum(rate_model)
    audio, _ = audio_files.read_wav(audio_files.path("en_us_16k.wav"))
    padded = model.reflect_right(audio[16000:16576].unsqueeze(0), 64)
    with torch.no_grad():
        expected, got = basis(padded), fft(padded)
    assert got.shape == expected.shape == (4, 129)
    assert (got - expected).abs().max() <= 1e-5 * expected.abs().max()
    damaged = _module((16000,)).models["16000"]
    with torch.no_grad():
        damaged.basis[5, 0, 7] += 1e-3
    with pytest.raises(ValueError, match="not a windowed DFT"):
        columns.FftSpectrum(damaged)


def test_int8_weights_stay_close_to_float32():
    """How far int8 moves the probabilities (the end-to-end tests check segments)."""
    float_module = _module((16000,))
    int8_module = int8.quantize(_module((16000,)))
    for name in ["en_us_16k.wav", "de_16k_noisy.wav", "pt_16k.wav"]:
        audio, rate = audio_files.read_wav(audio_files.path(name))
        chunks = audio_files.chunks(audio, rate)
        float_module.reset_states()
        int8_module.reset_states()
        difference = (_run(float_module, chunks, rate) - _run(int8_module, chunks, rate)).abs()
        print(f"{name}: int8 - float32: max {difference.max().item():.4f}, mean {difference.mean().item():.5f}")
        assert difference.max() < 0.15 and difference.mean() < 0.01


if __name__ == "__main__":
    testing.main(__file__)
