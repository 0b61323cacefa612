"""export_seq2seq_lm's and the command line's (--hf_seq2seq) refusals: each a clear error
before any export work, and no file written; generation settings naming tokens outside
the vocabulary, dropped with a note; and the command line's export of a model folder,
whose program generates what the model does."""

import os

import pytest
import torch
import transformers
from absl import flags
from transformers.generation.utils import GenerationMixin

from pteforge import ExportError
from pteforge.cli import export as cli
from pteforge.seq2seq import export_seq2seq_lm, load_seq2seq
from pteforge.seq2seq.export import load_hf_seq2seq
from pteforge.seq2seq.testing_models import tiny_model
from pteforge.support import testing


@pytest.fixture(scope="module")
def bart():
    return tiny_model("bart")


@pytest.mark.parametrize("kwargs, message", [
    ({"backend": "gpu"}, "unknown backend 'gpu'"),
    ({"quantize": "int4", "backend": "xnnpack"}, "quantize='int4': expected None or 'int8'"),
    ({"quantize": "int8"}, "quantize='int8' needs backend='xnnpack'"),
    ({"max_rows": 0}, "max_rows=0: must be an integer of at least 1"),
    ({"max_source_len": 0}, "max_source_len=0: must be an integer of at least 5"),
    ({"max_source_len": 65}, "max_source_len=65 exceeds the model's 64 source positions"),
    ({"max_target_len": 65}, "max_target_len=65 exceeds the 64 decoder positions of the model's position table"),
    ({"max_sources": 5}, r"max_sources=5: must be an integer from 1 to max_rows \(4\)"),
    ({"max_sources": 0}, r"max_sources=0: must be an integer from 1 to max_rows \(4\)"),
])
def test_bad_arguments_are_refused(bart, kwargs, message):
    with pytest.raises(ExportError, match=message):
        export_seq2seq_lm(bart, **{"max_source_len": 16, "max_target_len": 16, "max_rows": 4, **kwargs})


def test_models_outside_the_families_are_refused(bart):
    decoder_only = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_embd=16, n_head=2)).eval()
    with pytest.raises(ExportError, match="is not an encoder-decoder model; decoder-only causal LMs are exported "
                                          "by pteforge.llm"):
        export_seq2seq_lm(decoder_only)
    config = transformers.ProphetNetConfig(vocab_size=32, hidden_size=16, encoder_ffn_dim=32, decoder_ffn_dim=32,
                                           num_encoder_layers=1, num_decoder_layers=1, num_encoder_attention_heads=2,
                                           num_decoder_attention_heads=2)
    with pytest.raises(ExportError, match=r"model_type 'prophetnet'\) is not supported by pteforge.seq2seq"):
        export_seq2seq_lm(transformers.ProphetNetForConditionalGeneration(config).eval())
    bart.train()
    try:
        with pytest.raises(ExportError, match="is in training mode"):
            export_seq2seq_lm(bart)
    finally:
        bart.eval()


@pytest.mark.parametrize("setting, value, message", [
    ("bad_words_ids", [[5, 6]], r"bad_words_ids holds the sequence \[5, 6\]; only single-token entries"),
    ("early_stopping", "never", "early_stopping='never' is not supported"),
])
def test_generation_settings_the_search_cannot_follow_are_refused(setting, value, message):
    model = tiny_model("bart")
    setattr(model.generation_config, setting, value)
    with pytest.raises(ExportError, match=message):
        export_seq2seq_lm(model, max_source_len=16, max_target_len=16, max_rows=4)


def test_whisper_sources_have_the_models_length():
    with pytest.raises(ExportError, match="encoder always takes 16 positions"):
        export_seq2seq_lm(tiny_model("whisper"), max_source_len=8)


@pytest.mark.parametrize("max_rows", [1, 2])
def test_fewer_rows_than_the_conformance_calls_usual_four(max_rows):
    # One source at a time (greedy, batch 1) plans a cache and an encoder batch of one.
    model = tiny_model("marian")
    program = load_seq2seq(export_seq2seq_lm(model, max_source_len=8, max_target_len=8, max_rows=max_rows).data)
    expected = model.generate(input_ids=torch.tensor([[5, 9, 11, 0]]), num_beams=1, do_sample=False, max_length=8)
    expected = expected.tolist()[0][1:]
    if 0 in expected:
        expected = expected[:expected.index(0) + 1]  # to </s>
    assert program.generate([[5, 9, 11, 0]], num_beams=1) == [expected]


def test_whisper_int8_on_one_row():
    # Whisper's encoder reads embed_positions.num_embeddings, which the int8 table keeps.
    program = export_seq2seq_lm(tiny_model("whisper"), max_source_len=None, max_target_len=8, max_rows=1,
                                backend="xnnpack", quantize="int8")
    # 9 calls of every family, then Whisper's prefill, a step reading what it wrote, align.
    calls = program.report["conformance"]["calls"]
    assert len(calls) == 12 and calls[-3:] == ["prefill", "decode_step", "align"]


@pytest.mark.parametrize("max_rows", [1, 3])
def test_whisper_prefill_writes_what_row_zeros_steps_write(max_rows):
    """prefill (Whisper's long-form prompt at once) against the same tokens stepped one by
    one on row 0: the logits at the asked position, the cache, and the next step."""
    import copy

    from pteforge.seq2seq.cache import with_cache

    model = tiny_model("whisper")
    module = with_cache(model, max_rows=max_rows, max_source=model.config.max_source_positions, max_target=12)
    features = torch.randn(1, model.config.num_mel_bins, 2 * model.config.max_source_positions,
                           generator=torch.Generator().manual_seed(5))
    tokens = torch.tensor([[3, 9, 4, 40, 7]])
    stepped, prefilled = copy.deepcopy(module), copy.deepcopy(module)
    with torch.no_grad():
        for m in (stepped, prefilled):
            m.encode(features, torch.zeros(max_rows, dtype=torch.int64))
        steps = [stepped.decode_step(tokens[:, i:i + 1], torch.ones(1, i + 1, dtype=torch.int64)) for i in range(5)]
        logits = prefilled.prefill(tokens, torch.ones(1, 5, dtype=torch.int64), torch.tensor([2]))
        torch.testing.assert_close(logits, steps[2], atol=1e-5, rtol=1e-5)
        for a, b in zip(stepped.cache, prefilled.cache):
            torch.testing.assert_close(a.self_key, b.self_key, atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(a.self_value, b.self_value, atol=1e-5, rtol=1e-5)
        following = [m.decode_step(torch.tensor([[11]]), torch.ones(1, 6, dtype=torch.int64))
                     for m in (stepped, prefilled)]
        torch.testing.assert_close(following[0], following[1], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("max_rows", [1, 3])
def test_whisper_align_gives_the_alignment_heads_attention_and_token_probabilities(max_rows):
    """align (word timing) against transformers' own forward of the same tokens: the
    softmax of its scores is the alignment heads' cross-attention (output_attentions),
    and its probabilities are the next tokens' among the text tokens."""
    import copy

    from pteforge.seq2seq.cache import with_cache

    model = tiny_model("whisper")
    model.generation_config.alignment_heads = [[1, 0], [0, 1], [1, 1]]
    reference = copy.deepcopy(model)
    reference.set_attn_implementation("eager")
    module = with_cache(model, max_rows=max_rows, max_source=model.config.max_source_positions, max_target=12)
    features = torch.randn(2, model.config.num_mel_bins, 2 * model.config.max_source_positions,
                           generator=torch.Generator().manual_seed(5))
    tokens = torch.tensor([[3, 9, 4, 40, 7, 2]])
    with torch.no_grad():
        # Row 0 reads the second window (its source slot when there are several).
        module.encode(features if max_rows > 1 else features[1:], torch.tensor([1, 0, 0][:max_rows]))
        scores, probs = module.align(tokens)
        want = reference(input_features=features[1:], decoder_input_ids=tokens, output_attentions=True)
    expected = torch.stack([want.cross_attentions[layer][0, head] for layer, head in [[0, 1], [1, 0], [1, 1]]])
    torch.testing.assert_close(torch.softmax(scores, dim=-1), expected, atol=1e-5, rtol=1e-4)
    text = torch.softmax(want.logits[0, :-1, :module.text_vocab], dim=-1)
    following = tokens[0, 1:].clamp(max=module.text_vocab - 1)
    expected_probs = text.gather(1, following.view(-1, 1)).view(-1)
    torch.testing.assert_close(probs, expected_probs, atol=1e-6, rtol=1e-4)


def test_settings_naming_tokens_outside_the_vocabulary_are_dropped_with_a_note():
    # transformers' own WhisperConfig defaults suppress ids of the 51865-token vocabulary;
    # on a small model generate() ignores those (its processors mask the vocabulary only).
    model = tiny_model("whisper")
    model.generation_config.suppress_tokens = [5, 6, 220, 50256]
    model.generation_config.begin_suppress_tokens = [94, 50257]
    program = export_seq2seq_lm(model, max_source_len=None, max_target_len=8, max_rows=1)
    notes = program.report["notes"]
    assert len(notes) == 2, notes
    assert "suppress_tokens: 2 id(s) outside the vocabulary of 96 dropped (220, 50256)" in notes[0]
    assert "begin_suppress_tokens: 1 id(s) outside the vocabulary of 96 dropped (50257)" in notes[1]
    loaded = load_seq2seq(program.data)
    assert loaded._ids("suppress_tokens") == (5, 6) and loaded._ids("begin_suppress_tokens") == (94,)
    features = torch.randn(1, 8, 32, generator=torch.Generator().manual_seed(3))
    expected = GenerationMixin.generate(model, input_features=features, num_beams=1, do_sample=False, max_length=8)
    expected = expected.tolist()[0][1:]
    if 94 in expected:
        expected = expected[:expected.index(94) + 1]  # to </s>
    assert loaded.generate(features, num_beams=1) == [expected]


def test_the_report_counts_each_methods_delegate_calls_and_operators():
    program = export_seq2seq_lm(tiny_model("marian"), max_source_len=8, max_target_len=8, max_rows=2,
                                max_sources=1, backend="xnnpack")
    counts = testing.instructions(program.data)
    for method in ("encode", "decode_step", "reorder_cache"):
        entry = program.report["methods"][method]
        assert entry["delegate_calls"] == counts[method][testing.DELEGATE]
        assert entry["operators"] == {name: n for name, n in counts[method].items() if name != testing.DELEGATE}
        assert entry["operator_calls"] == sum(entry["operators"].values())
    step = program.report["methods"]["decode_step"]
    # The step reads the cache where it is: per layer, two in-place cache writes
    # (index_put_ into state) and two pteforge::cached_attention calls outside XNNPACK,
    # the projections and feed-forward layers in the 7 delegate calls between them for
    # this 2-layer model, and one write of the slot table (cache.py); no gather
    # (index_select), no broadcast copy, no vocabulary-wide log-softmax.
    assert step["delegate_calls"] == 7, step
    assert step["operators"]["aten::index_put_"] == 2 * 2 + 1
    assert step["operators"]["pteforge::cached_attention.out"] == 4
    for copy in ("aten::index_select.out", "aten::expand_copy.out", "aten::_log_softmax.out",
                 "aten::native_layer_norm.out"):
        assert copy not in step["operators"], step
    # Beam search's reorder moves the slot table's rows, whatever the layers: one gather
    # and one write, no cache copied.
    reorder = program.report["methods"]["reorder_cache"]["operators"]
    assert reorder.get("aten::index_select.out") == 1 and reorder.get("aten::index_put_") == 1, reorder


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(ExportError, match="is not a Hugging Face model folder: it has no config.json"):
        load_hf_seq2seq(tmp_path)


def _run(capsys, *args):
    flags.FLAGS.unparse_flags()
    status = cli.main(flags.FLAGS(["export", *args], known_only=False))
    return status, capsys.readouterr().err


@pytest.mark.parametrize("args, status, message", [
    (["--hf_seq2seq=DIR", "--hf_model=DIR"], 2, "give one of --model"),
    (["--hf_seq2seq=DIR", "--max_seq_len=64"], 2, "--max_seq_len is for --hf_causal_lm exports"),
    (["--hf_model=DIR", "--max_rows=4"], 2, "--max_rows is for --hf_seq2seq exports"),
    (["--model=pteforge.program.testing_models:make_cache", "--max_target_len=4"], 2,
     "--max_target_len is for --hf_seq2seq"),
    (["--hf_seq2seq=DIR", "--quantize=int4", "--backend=xnnpack"], 2, "--hf_seq2seq takes none or int8"),
    (["--hf_seq2seq=DIR/missing"], 2, "no such folder"),
    (["--hf_seq2seq=DIR"], 1, "is not a Hugging Face model folder"),
])
def test_command_line_refusals(tmp_path, capsys, args, status, message):
    args = [arg.replace("DIR", str(tmp_path)) for arg in args]
    code, err = _run(capsys, *args, f"--out={tmp_path / 'm.pte'}")
    assert code == status and message in err, err
    assert not os.path.exists(tmp_path / "m.pte")


def test_command_line_exports_a_model_folder(tmp_path, capsys):
    model = tiny_model("marian")
    model.save_pretrained(tmp_path / "marian")
    out = tmp_path / "marian.pte"
    code, err = _run(capsys, f"--hf_seq2seq={tmp_path / 'marian'}", "--max_source_len=8", "--max_target_len=8",
                     "--max_rows=4", f"--out={out}")
    assert code == 0, err
    program = load_seq2seq(str(out))
    sources = [[5, 9, 11, 0], [21, 0]]
    ids = torch.tensor([[5, 9, 11, 0], [21, 0, 95, 95]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
    expected = model.generate(input_ids=ids, attention_mask=mask, num_beams=1, do_sample=False, max_length=8)
    expected = [row[1:row.index(0) + 1] if 0 in row[1:] else row[1:] for row in expected.tolist()]  # to </s>
    assert program.generate(sources, num_beams=1) == expected


if __name__ == "__main__":
    testing.main(__file__)
