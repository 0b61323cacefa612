"""seq2seq_bench's pure parts (no torch): the model shapes, the workload's token ids, the
vocabulary CTranslate2's converter is given, the rates, the goals and the table."""

from __future__ import annotations

MODELS = ("whisper", "t5")
ENGINES = ("pteforge", "optimum", "transformers", "ctranslate2")
PRECISIONS = ("float32", "int8")

# What the table calls each engine.
ENGINE_NAMES = {
    "pteforge": "pteforge (encode / decode_step)",
    "optimum": "optimum-executorch design",
    "transformers": "transformers eager",
    "ctranslate2": "CTranslate2",
}

# Whisper's multilingual vocabulary (openai/whisper-tiny): the text tokens, then
# <|endoftext|>, <|startoftranscript|>, 99 languages, the task and other special tokens,
# <|notimestamps|> at 50363, and 1501 timestamps up to 51864.
WHISPER_EOS, WHISPER_START, WHISPER_EN, WHISPER_TRANSCRIBE, WHISPER_NO_TIMESTAMPS = 50257, 50258, 50259, 50359, 50363
WHISPER_LANGUAGES = 99
# Whisper's decoder prompt: start, English, transcribe, no timestamps.
WHISPER_PROMPT = (WHISPER_START, WHISPER_EN, WHISPER_TRANSCRIBE, WHISPER_NO_TIMESTAMPS)
# T5: pad = decoder start 0, EOS 1, unk 2.
T5_PAD, T5_EOS, T5_UNK = 0, 1, 2
T5_PROMPT = (T5_PAD,)

# transformers config arguments. "real": Whisper-tiny's and T5-small's shapes
# (openai/whisper-tiny, google-t5/t5-small config.json); "tiny": the same vocabularies
# and positions with a small width and depth, to try the benchmark in minutes.
_WHISPER_TOKENS = dict(vocab_size=51865, num_mel_bins=80, max_source_positions=1500, max_target_positions=448,
                       pad_token_id=WHISPER_EOS, bos_token_id=WHISPER_EOS, eos_token_id=WHISPER_EOS,
                       decoder_start_token_id=WHISPER_START, dropout=0.0, attention_dropout=0.0,
                       activation_dropout=0.0)
_T5_TOKENS = dict(vocab_size=32128, pad_token_id=T5_PAD, eos_token_id=T5_EOS, decoder_start_token_id=T5_PAD,
                  relative_attention_num_buckets=32, relative_attention_max_distance=128, dropout_rate=0.0,
                  feed_forward_proj="relu", tie_word_embeddings=True)
CONFIGS = {
    ("whisper", "real"): dict(d_model=384, encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
                              decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, **_WHISPER_TOKENS),
    ("whisper", "tiny"): dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                              decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, **_WHISPER_TOKENS),
    ("t5", "real"): dict(d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=6, num_heads=8,
                         **_T5_TOKENS),
    ("t5", "tiny"): dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4, **_T5_TOKENS),
}


def prompt(model: str) -> tuple[int, ...]:
    """The decoder prompt (start token first)."""
    return WHISPER_PROMPT if model == "whisper" else T5_PROMPT


def t5_source(length: int, vocab_size: int, seed: int = 1) -> list[int]:
    """`length` source ids: length - 1 text tokens drawn from `seed` (above the special
    ids), then EOS, as T5's tokenizer ends a source."""
    import random

    draw = random.Random(seed)
    return [draw.randrange(T5_UNK + 1, vocab_size) for _ in range(length - 1)] + [T5_EOS]


def ct2_vocabulary(model: str, vocab_size: int) -> dict:
    """What CTranslate2's converter reads of a tokenizer, for a model folder without one:
    a name per id (CTranslate2 finds Whisper's special tokens by name) and the special
    tokens. Whisper's list stops before the timestamps (its converter appends them)."""
    if model == "whisper":
        names = [f"t{i}" for i in range(WHISPER_EOS)] + ["<|endoftext|>", "<|startoftranscript|>"]
        languages = ["<|en|>"] + [f"<|lang{i}|>" for i in range(1, WHISPER_LANGUAGES)]
        names += languages + ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                              "<|nocaptions|>", "<|notimestamps|>"]
        assert names[WHISPER_NO_TIMESTAMPS] == "<|notimestamps|>" and names[WHISPER_EN] == "<|en|>"
        special = dict(pad="<|endoftext|>", eos="<|endoftext|>", unk="<|endoftext|>", bos="<|endoftext|>")
        return dict(tokens=names, additional=languages, **special)
    names = ["<pad>", "</s>", "<unk>"] + [f"t{i}" for i in range(T5_UNK + 1, vocab_size)]
    return dict(tokens=names, additional=[], pad="<pad>", eos="</s>", unk="<unk>", bos=None)


def agreement(tokens: list[int], reference: list[int] | None) -> int | None:
    """How many tokens equal the reference's at the same position (None: no reference)."""
    if reference is None:
        return None
    return sum(a == b for a, b in zip(tokens, reference))


def rate_between(tokens_a: int, ms_a: float, tokens_b: int, ms_b: float) -> float:
    """Tokens per second from two runs of one engine that differ only in how many tokens
    they decode (CTranslate2's translator, which cannot encode alone): the difference
    cancels the encoder and the fixed costs."""
    if tokens_b <= tokens_a or ms_b <= ms_a:
        raise ValueError(f"no decode time between {tokens_a} tokens in {ms_a} ms and {tokens_b} in {ms_b} ms")
    return (tokens_b - tokens_a) / ((ms_b - ms_a) / 1e3)


DECODE_GOAL, MEMORY_GOAL, CT2_GOAL, EAGER_GOAL = 1.5, 1.0, 1.0, 2.0


def _ratio_goal(ours: dict, other: dict, against: str, key: str, goal: str, need: float, higher: bool,
                unit: str) -> dict | None:
    """ours[key] / other[key] against `need` (at least it when `higher`, else at most),
    or None where a side has no figure."""
    if ours.get(key) is None or not other.get(key):
        return None
    ratio = ours[key] / other[key]
    return {"model": ours["model"], "precision": ours["precision"], "beams": ours["beams"],
            "threads": ours["threads"], "against": against, "goal": goal, "ratio": ratio,
            "figures": f"{ours[key]:.1f} vs {other[key]:.1f} {unit} = {ratio:.2f}x",
            "met": ratio >= need if higher else ratio <= need}


def goals(rows: list[dict]) -> list[dict]:
    """The goals, per model, precision, beams and threads measured (each: what, the
    figures, the ratio, met; left out where a side is missing): pteforge's decode
    tokens/s at least CTranslate2's, and 2x transformers eager's in float32; its encode
    time and peak RSS at most CTranslate2's; greedy, its decode at least 1.5x the
    optimum-executorch design's at no more planned memory."""
    def find(engine, like):
        return next((r for r in rows if r["engine"] == engine and all(
            r[key] == like[key] for key in ("model", "precision", "beams", "threads"))), None)

    found = []
    for ours in rows:
        if ours["engine"] != "pteforge" or ours["decode_tokens_per_s"] is None:
            continue
        ct2, eager, optimum = find("ctranslate2", ours), find("transformers", ours), find("optimum", ours)
        candidates = []
        if ct2:
            candidates += [
                _ratio_goal(ours, ct2, "ctranslate2", "decode_tokens_per_s",
                            f"decode tok/s >= {CT2_GOAL}x CTranslate2's", CT2_GOAL, True, "tok/s"),
                _ratio_goal(ours, ct2, "ctranslate2", "encode_ms", "encode ms <= CTranslate2's", 1.0, False, "ms"),
                _ratio_goal(ours, ct2, "ctranslate2", "peak_rss_mb", "peak RSS <= CTranslate2's", 1.0, False, "MB"),
            ]
        if eager and ours["precision"] == "float32":
            candidates.append(_ratio_goal(ours, eager, "transformers", "decode_tokens_per_s",
                                          f"decode tok/s >= {EAGER_GOAL}x transformers eager's", EAGER_GOAL, True,
                                          "tok/s"))
        found += [goal for goal in candidates if goal]
        if optimum and optimum["decode_tokens_per_s"] and optimum["planned_mb"]:
            speed = ours["decode_tokens_per_s"] / optimum["decode_tokens_per_s"]
            memory = ours["planned_mb"] / optimum["planned_mb"]
            found.append({
                "model": ours["model"], "precision": ours["precision"], "beams": ours["beams"],
                "threads": ours["threads"], "against": "optimum",
                "goal": f"decode tok/s >= {DECODE_GOAL}x the optimum-executorch design's at planned memory <= its",
                "ratio": speed, "decode_ratio": speed, "planned_ratio": memory,
                "figures": f"{ours['decode_tokens_per_s']:.1f} vs {optimum['decode_tokens_per_s']:.1f} tok/s = "
                           f"{speed:.2f}x; planned {ours['planned_mb']:.1f} vs {optimum['planned_mb']:.1f} MB = "
                           f"{memory:.2f}x",
                "met": speed >= DECODE_GOAL and memory <= MEMORY_GOAL,
            })
    return found


def goal_lines(found: list[dict]) -> list[str]:
    return [f"{g['model']} {g['precision']}, {g['beams']} beam(s), {g['threads']} thread(s): {g['goal']}: "
            f"{g['figures']}: {'met' if g['met'] else 'NOT MET'}" for g in found]


HEADER = ("| model | engine | precision | beams | threads | encode ms | decode tok/s | peak RSS MB | planned MB "
          "| file MB | export s | = eager |")


def _fmt(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table_row(r: dict) -> str:
    equal = "-" if r.get("tokens_equal_eager") is None else f"{r['tokens_equal_eager']}/{len(r['tokens'])}"
    return (f"| {r['model']} | {ENGINE_NAMES[r['engine']]} | {r['precision']} | {r['beams']} | {r['threads']} | "
            f"{_fmt(r['encode_ms'])} | {_fmt(r['decode_tokens_per_s'])} | {_fmt(r['peak_rss_mb'], 0)} | "
            f"{_fmt(r['planned_mb'])} | {_fmt(r.get('file_mb'))} | {_fmt(r.get('export_s'), 0)} | {equal} |")
