"""transcribe_bench's pure parts (transcribe_common): rows from fake engine results, the
table and the JSON document. No model, no process."""

import json

import pytest

from benchmarks import transcribe_common as common
from benchmarks import whisper_ggml
from pteforge.support import testing

_REFERENCE = "More than 400 people answered every question. The train leaves at 9:30."


_SAID = "more than four hundred people answered every question the train leaves at nine thirty"


def _row(engine="pteforge", text=_SAID, **extra):
    return common.make_row(engine, "float32", 1, 5, "long.wav", 100.0, 12.5, 300.4, text, _REFERENCE, **extra)


def test_row_has_the_issues_fields_and_derives_rtf_and_wer():
    row = _row(segments=3, load_s=0.4)
    assert set(common.ROW_FIELDS) <= set(row)
    assert row["rtf"] == pytest.approx(0.125)
    # The normalizer's words: "400" is "four hundred", "9:30" "nine thirty".
    words = len(row["text"].split())
    assert row["wer"] == 0.0 and row["word_errors"] == 0 and row["reference_words"] == words
    wrong = _row(text="More than 400 people answered a question. The train leaves at 9:30.")
    assert wrong["word_errors"] == 1 and wrong["wer"] == pytest.approx(1 / words)


def test_table_lines_match_rows_and_show_missing_values_as_dashes():
    rows = [_row(segments=3, load_s=0.4), _row("whisper.cpp", load_s=None),
            _row(program_label="program of 2026-11-27"), _row(vad=True)]
    lines = common.table(rows)
    assert len(lines) == 2 + len(rows)
    assert all(line.count("|") == lines[0].count("|") for line in lines)
    assert lines[2] == "| long.wav | pteforge | float32 | 5 | 1 | 12.50 | 0.125 | 0.40 | 300 | 3 | 0.0% |"
    assert "| whisper.cpp | float32 | 5 | 1 | 12.50 | 0.125 | - | 300 | - |" in lines[3]
    assert "| pteforge (program of 2026-11-27) |" in lines[4]
    assert "| pteforge, VAD filter |" in lines[5]


def test_document_is_json_with_the_cpu_flags_on_every_row():
    machine = {"cpu": "Some CPU", "cpu_flags": ["avx2", "fma"], "cores": 2}
    document = common.document([_row(), _row("faster-whisper")], machine, "transcribe_bench --x", "2026-11-28 12:00",
                               {"model": "tiny.en"}, ["whisper.cpp: left out"])
    loaded = json.loads(json.dumps(document))
    assert loaded["cpu_flags"] == ["avx2", "fma"] and loaded["notes"] == ["whisper.cpp: left out"]
    assert [r["engine"] for r in loaded["rows"]] == ["pteforge", "faster-whisper"]
    assert all(r["cpu_flags"] == ["avx2", "fma"] and set(common.ROW_FIELDS) <= set(r) for r in loaded["rows"])


def test_ggml_names_are_openai_whispers():
    assert whisper_ggml.ggml_name("model.decoder.layers.3.encoder_attn.k_proj.weight") == \
        "decoder.blocks.3.cross_attn.key.weight"
    assert whisper_ggml.ggml_name("model.encoder.layers.0.self_attn.k_proj.weight") == \
        "encoder.blocks.0.attn.key.weight"
    assert whisper_ggml.ggml_name("model.encoder.layers.1.fc2.bias") == "encoder.blocks.1.mlp.2.bias"
    assert whisper_ggml.ggml_name("model.encoder.layer_norm.weight") == "encoder.ln_post.weight"
    assert whisper_ggml.ggml_name("model.decoder.embed_tokens.weight") == "decoder.token_embedding.weight"
    assert whisper_ggml.ggml_name("model.encoder.conv1.weight") == "encoder.conv1.weight"
    assert whisper_ggml.ggml_name("proj_out.weight") is None  # tied to the token embedding


def test_ggml_tokens_are_the_bpe_strings_bytes_by_id(tmp_path):
    # "Ġ" is the byte-level BPE's space, "Ċ" its newline; ids out of order in the file.
    vocabulary = {"Ġthe": 1, "hello": 0, "Ċ": 2, "<|endoftext|>": 3}
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"vocab": vocabulary}}), encoding="utf-8")
    assert whisper_ggml.token_bytes(str(tmp_path)) == [b"hello", b" the", b"\n", b"<|endoftext|>"]


if __name__ == "__main__":
    testing.main(__file__)
