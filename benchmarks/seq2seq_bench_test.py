"""seq2seq_bench's pure parts (seq2seq_common): CTranslate2's vocabulary, the workload's
ids, the rates and the goals. No model, no export."""

import pytest

from benchmarks import seq2seq_common as common
from pteforge.support import testing


def test_whisper_vocabulary_puts_the_special_tokens_at_whispers_ids():
    vocabulary = common.ct2_vocabulary("whisper", 51865)
    tokens = vocabulary["tokens"]
    # The converter appends the 1501 timestamps itself, up to the model's 51865.
    assert len(tokens) == 50364 and len(tokens) + 1501 == 51865
    assert tokens[common.WHISPER_EOS] == "<|endoftext|>"
    assert tokens[common.WHISPER_START] == "<|startoftranscript|>"
    assert tokens[common.WHISPER_EN] == "<|en|>"
    assert tokens[common.WHISPER_TRANSCRIBE] == "<|transcribe|>"
    assert tokens[common.WHISPER_NO_TIMESTAMPS] == "<|notimestamps|>"
    assert len(set(tokens)) == len(tokens)
    assert len(vocabulary["additional"]) == common.WHISPER_LANGUAGES
    assert list(common.prompt("whisper")) == [50258, 50259, 50359, 50363]


def test_t5_vocabulary_and_source():
    vocabulary = common.ct2_vocabulary("t5", 32128)
    tokens = vocabulary["tokens"]
    assert len(tokens) == len(set(tokens)) == 32128
    assert tokens[:3] == ["<pad>", "</s>", "<unk>"] and vocabulary["eos"] == "</s>"
    source = common.t5_source(64, 32128)
    assert len(source) == 64 and source[-1] == common.T5_EOS
    assert all(common.T5_UNK < t < 32128 for t in source[:-1])
    assert source == common.t5_source(64, 32128)  # seeded
    assert list(common.prompt("t5")) == [common.T5_PAD]


def test_agreement_counts_equal_positions():
    assert common.agreement([1, 2, 3, 4], [1, 5, 3, 4]) == 3
    assert common.agreement([1, 2], None) is None


def test_rate_between_two_runs_cancels_the_fixed_cost():
    # 10 ms fixed + 2 ms a token: 1 token in 12 ms, 64 in 138 ms -> 500 tokens/s.
    assert common.rate_between(1, 12.0, 64, 138.0) == pytest.approx(500.0)
    with pytest.raises(ValueError):
        common.rate_between(1, 12.0, 64, 11.0)


def _row(engine, precision, tok_s, planned=None, model="t5", beams=1, threads=1, encode_ms=1.0, rss=100.0):
    return {"engine": engine, "model": model, "precision": precision, "beams": beams, "threads": threads,
            "encode_ms": encode_ms, "decode_tokens_per_s": tok_s, "peak_rss_mb": rss, "planned_mb": planned,
            "tokens": [1, 2], "tokens_equal_eager": 2}


def test_goals_are_ratios_at_the_same_precision_beams_and_threads():
    rows = [_row("pteforge", "float32", 30.0, 10.0), _row("optimum", "float32", 15.0, 12.0),
            _row("ctranslate2", "float32", 40.0, encode_ms=2.0, rss=90.0), _row("transformers", "float32", 10.0),
            _row("pteforge", "int8", 60.0, 20.0), _row("optimum", "int8", 50.0, 12.0),
            _row("ctranslate2", "int8", 50.0), _row("transformers", "int8", 5.0),
            # Another beam count and thread count: compared with their own rows only.
            _row("pteforge", "int8", 20.0, 20.0, beams=4, threads=2), _row("ctranslate2", "int8", 10.0, beams=4),
            _row("ctranslate2", "int8", 40.0, beams=4, threads=2)]
    found = {(g["precision"], g["beams"], g["threads"], g["goal"].split(" ")[0], g["against"]): g
             for g in common.goals(rows)}
    optimum = found["float32", 1, 1, "decode", "optimum"]
    assert optimum["decode_ratio"] == pytest.approx(2.0) and optimum["planned_ratio"] == pytest.approx(10 / 12)
    assert optimum["met"]
    assert not found["float32", 1, 1, "decode", "ctranslate2"]["met"]  # 0.75x
    assert found["float32", 1, 1, "encode", "ctranslate2"]["met"]  # 1 ms against 2 ms
    assert not found["float32", 1, 1, "peak", "ctranslate2"]["met"]  # 100 MB against 90 MB
    assert found["float32", 1, 1, "decode", "transformers"]["ratio"] == pytest.approx(3.0)
    assert not any(key[0] == "int8" and key[4] == "transformers" for key in found)  # float32 only
    assert not found["int8", 1, 1, "decode", "optimum"]["met"]  # 1.2x, and more planned memory
    assert found["int8", 1, 1, "decode", "ctranslate2"]["met"]  # 1.2x
    assert found["int8", 4, 2, "decode", "ctranslate2"]["ratio"] == pytest.approx(0.5)
    lines = common.goal_lines(common.goals(rows))
    assert lines[0].startswith("t5 float32, 1 beam(s), 1 thread(s):") and lines[0].endswith(": NOT MET")


def test_goals_skip_what_was_not_measured():
    assert common.goals([_row("pteforge", "float32", 30.0, 10.0)]) == []
    assert common.goals([_row("optimum", "float32", 15.0, 12.0)]) == []


def test_table_row_shows_missing_values_as_dashes():
    row = {**_row("ctranslate2", "int8", 50.0, beams=4), "encode_ms": None, "file_mb": None, "export_s": None}
    line = common.table_row(row)
    assert line.startswith("| t5 | CTranslate2 | int8 | 4 | 1 | - | 50.0 | 100 | - |") and line.endswith("| 2/2 |")


if __name__ == "__main__":
    testing.main(__file__)
