"""CTranslate2's Whisper variables become the transformers model they were converted from:
every parameter equal (float32) or within the storage's rounding (float16, bfloat16,
int8, int16), the same logits; what does not fit is a WeightsError naming it."""

import dataclasses

import pytest
import torch

from models.whisper.convert import build_model, instantiate
from models.whisper.model_file import read_model_file
from models.whisper.settings import model_config
from models.whisper.tiny_ct2_model import (ALIGNMENT_HEADS, BEGIN_SUPPRESS, SOURCE_POSITIONS, SUPPRESS,
                                          write_tiny_ct2_model)
from models.whisper.weights import WeightsError, read_weights
from pteforge.support import testing

# The largest error relative to a tensor's largest value: float32 exact; int8 is a 1/127
# step of a row's maximum, rounded (half of it); float16 and bfloat16 their mantissas.
TOLERANCE = {"float32": 0.0, "float16": 1e-3, "bfloat16": 4e-3, "int8": 4e-3, "int16": 1e-3, "int8_float16": 4e-3}


@pytest.fixture(scope="module")
def float32_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("ct2") / "float32")
    model, _ = write_tiny_ct2_model(folder)
    return folder, model


@pytest.mark.parametrize("quantization", sorted(TOLERANCE))
def test_every_parameter_comes_back(tmp_path, quantization):
    original, _ = write_tiny_ct2_model(str(tmp_path / "ct2"), quantization)
    model, _, conversion = build_model(str(tmp_path / "ct2"))
    theirs, ours = original.state_dict(), model.state_dict()
    assert set(ours) == set(theirs)
    for name, tensor in theirs.items():
        error = (ours[name] - tensor).abs().max() / tensor.abs().max()
        assert error <= TOLERANCE[quantization], f"{name}: relative error {error.item():.2e}"
    assert model.proj_out.weight is model.model.decoder.embed_tokens.weight  # tied, as the original
    assert conversion.dims.tied_output and conversion.aliases == 1
    features = torch.randn(1, 80, 2 * SOURCE_POSITIONS, generator=torch.Generator().manual_seed(1))
    tokens = torch.tensor([[50257, 50362, 400, 21]])
    with torch.no_grad():
        expected = original(input_features=features, decoder_input_ids=tokens).logits
        got = model(input_features=features, decoder_input_ids=tokens).logits
    scale = expected.abs().max()
    assert ((got - expected).abs().max() / scale) <= max(TOLERANCE[quantization] * 20, 1e-5)


def test_settings_come_from_config_json_and_the_tokenizer(float32_dir):
    folder, _ = float32_dir
    model, tokenizer, _ = build_model(folder)
    generation = model.generation_config
    assert generation.suppress_tokens == SUPPRESS and generation.begin_suppress_tokens == BEGIN_SUPPRESS
    assert generation.alignment_heads == ALIGNMENT_HEADS
    assert (generation.decoder_start_token_id, generation.eos_token_id, generation.pad_token_id) == (50257, 50256,
                                                                                                     50256)
    assert (generation.no_timestamps_token_id, generation.prev_sot_token_id) == (50362, 50360)
    assert generation.is_multilingual is False and not hasattr(generation, "lang_to_id")
    assert model.config.suppress_tokens == SUPPRESS and model.config.max_target_positions == 32
    assert tokenizer.token_to_id("<|0.00|>") == 50363 and tokenizer.token_to_id("<|30.00|>") == 51863


def _damaged(folder: str, changes: dict):
    """model.bin's contents with variables replaced, added, or removed (None)."""
    model_file = read_model_file(f"{folder}/model.bin")
    variables = dict(model_file.variables)
    for name, value in changes.items():
        if value is None:
            del variables[name]
        else:
            variables[name] = value
    return dataclasses.replace(model_file, variables=variables)


def _error(model_file) -> str:
    with pytest.raises(WeightsError) as error:
        read_weights(model_file)
    return str(error.value)


def test_what_does_not_fit_is_named(float32_dir):
    folder, _ = float32_dir
    model_file = read_model_file(f"{folder}/model.bin")
    assert "decoder/extra/weight" in _error(_damaged(folder, {"decoder/extra/weight": torch.ones(2)}))
    assert "decoder/layer_1/ffn/linear_0/bias is missing" in _error(
        _damaged(folder, {"decoder/layer_1/ffn/linear_0/bias": None}))
    assert "decoder/activation is 1; transformers' Whisper has 3" in _error(
        _damaged(folder, {"decoder/activation": torch.tensor(1, dtype=torch.int8)}))
    qkv = "encoder/layer_0/self_attention/linear_0/bias"
    assert "nonzero key bias" in _error(_damaged(folder, {qkv: model_file.variables[qkv] + 1}))
    assert "not 3 equal fused projections" in _error(_damaged(folder, {qkv: model_file.variables[qkv][:-1]}))
    renamed = {name.replace("encoder/layer_1/", "encoder/layer_2/"): value
               for name, value in model_file.variables.items()}
    assert "layers are [0, 2]" in _error(dataclasses.replace(model_file, variables=renamed))
    assert "is a TransformerSpec, not a WhisperSpec" in _error(dataclasses.replace(model_file, spec="TransformerSpec"))
    assert "revision 2" in _error(dataclasses.replace(model_file, revision=2))


def test_a_shape_that_does_not_fit_is_an_error(float32_dir):
    folder, _ = float32_dir
    fc1 = "decoder/layer_1/ffn/linear_0/weight"
    model_file = _damaged(folder, {fc1: torch.ones(5, 16)})
    dims, state = read_weights(model_file)
    config = model_config(dims, {"<|endoftext|>": 50256, "<|startoftranscript|>": 50257}, [], [])
    with pytest.raises(WeightsError, match="size mismatch for model.decoder.layers.1.fc1.weight"):
        instantiate(config, dims, state, model_file.path)


if __name__ == "__main__":
    testing.main(__file__)
