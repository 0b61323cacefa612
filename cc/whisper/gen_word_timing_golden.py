"""Writes the goldens of //cc/whisper:word_timing_test from faster-whisper 1.2.1's own
functions (its Tokenizer.split_to_word_tokens, WhisperModel.find_alignment and
add_word_timestamps, merge_punctuations, utils.get_end), run on a small byte-level BPE
tokenizer trained here with `tokenizers` (Whisper's kind: GPT-2 pre-tokenizer and
decoder, <|endoftext|> right after the vocabulary, then Whisper's other special tokens).

    python gen_word_timing_golden.py OUT_DIR

writes OUT_DIR/word_timing_tokenizer.json and OUT_DIR/word_timing_golden.inc (C++
initializers; doubles with 17 significant digits, read back exactly). Both are checked
in under cc/whisper/testdata; the run is deterministic (fixed seeds, nothing downloaded).

The model's part is stood in for: add_word_timestamps gets a `self` whose find_alignment
is faster-whisper's own over a `self.model.align` returning a fixed path and fixed token
probabilities (what CTranslate2 would), or, for the heuristics alone, a find_alignment
returning fixed words.
"""

import inspect
import os
import random
import sys
import types

import numpy as np
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from faster_whisper import tokenizer as fw_tokenizer
from faster_whisper import utils as fw_utils
from faster_whisper.transcribe import WhisperModel, merge_punctuations

PREPEND = "\"'“¿([{-"  # transcribe()'s defaults
APPEND = "\"'.。,，!！?？:：”)]}、"
SPECIALS = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|ja|>", "<|transcribe|>",
            "<|translate|>", "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]

CORPUS = [
    "And so, my fellow Americans, ask not what your country can do for you, ask what you can do "
    "for your country.",
    "The quick brown fox jumps over the lazy dog. Isn't it? It's (very) \"nice\" - really...",
    "We choose to go to the Moon in this decade and do the other things, not because they are "
    "easy, but because they are hard.",
    "Mr. Smith's 1,234.56 dollars; 100% sure: yes! Well, well, well.",
    "Ça va ? Où est l'hôtel ? Grüße aus Köln, señor Muñoz. naïve café São Paulo ¿Qué tal?",
    "日本語のテキストです。東京は日本の首都です。",
    "🎵 la la la 🎵 “quoted” words, and so on、",
]

# Texts split into words (also the windows' text); several have characters split across
# tokens, and the language "ja" takes split_tokens_on_unicode alone.
SPLIT_TEXTS = [
    ("en", " Hello, world! How are you?"),
    ("en", " And so, my fellow Americans, ask not what your country can do for you."),
    ("en", " Mr. Smith's dog - it's (very) \"nice\"... isn't it?"),
    ("en", " naïve café, São Paulo. ¿Qué tal? Ærøskøbing"),
    ("en", " 日本語のテキスト。 東京"),
    ("ja", "日本語のテキストです。東京は日本の首都です。"),
    ("ja", " Hello, world! 🎵 naïve"),
    ("en", " 🎵 la la 🎵 “quoted”, done、"),
    ("en", " 1,234.56 $ 100% — well: yes!"),
    ("en", " a\u00a0. b\u3000, c \u2028 d"),  # Python's strip takes Unicode spaces too
    ("en", "No leading space,then.punctuation"),
    ("en", " ()[]{} -- ... ?! ,,"),
    # Sentence ends that stay words of their own (after a space; not all of the marks
    # are appended ones), so that cutting them to twice the median shows.
    ("en", " Wait . Then 。! go ? No"),
]


def train_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=420, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS * 3, trainer)
    tok.add_special_tokens(SPECIALS)
    assert tok.token_to_id("<|endoftext|>") == tok.get_vocab_size() - len(SPECIALS)
    return tok


def fw(tok: Tokenizer, language: str) -> fw_tokenizer.Tokenizer:
    if language == "en":
        return fw_tokenizer.Tokenizer(tok, multilingual=False)
    return fw_tokenizer.Tokenizer(tok, multilingual=True, task="transcribe", language=language)


# --- C++ literals -----------------------------------------------------------------------

def s(text: str) -> str:
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out.append("\\%03o" % byte if char in '"\\?' or not 0x20 <= byte < 0x7F else char)
    return '"' + "".join(out) + '"'


def d(value) -> str:
    return "%.17g" % float(value)


def ids(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def floats(values) -> str:
    """float32 values: 9 significant digits read back exactly."""
    return "{" + ", ".join("%.9gf" % v for v in values) + "}"


def steps(path) -> str:
    """A path from (0, 0) as its steps: r (next frame), d (next row), b (both)."""
    assert tuple(path[0]) == (0, 0)
    moves = {(0, 1): "r", (1, 0): "d", (1, 1): "b"}
    return '"' + "".join(moves[(b[0] - a[0], b[1] - a[1])] for a, b in zip(path, path[1:])) + '"'


# --- Cases ------------------------------------------------------------------------------

def split_cases(tok, rng):
    eot = tok.token_to_id("<|endoftext|>")
    cases = [(language, text, tok.encode(text, add_special_tokens=False).ids) for language, text in SPLIT_TEXTS]
    # Random ids: byte tokens out of order (broken UTF-8, genuine U+FFFD in the text).
    for k in range(8):
        cases.append(("ja" if k % 4 == 3 else "en", "random %d" % k,
                      [rng.randrange(eot) for _ in range(rng.randint(1, 16))]))
    lines = []
    for language, name, tokens in cases:
        words, word_tokens = fw(tok, language).split_to_word_tokens(tokens + [eot])
        lines.append("{%s, %s, %s, {%s}, {%s}}," % (s(name), s(language), ids(tokens), ", ".join(s(w) for w in words),
                                                     ", ".join(ids(t) for t in word_tokens)))
    return lines


def random_path(rng, rows, long_words):
    """A path as CTranslate2's DTW gives one: from (0, 0), each step right, down or both,
    rows dwelling 0 to 10 frames, some (long_words) 30 to 90."""
    path, frame = [(0, 0)], 0
    for row in range(rows):
        dwell = rng.randint(0, 10) if rng.random() > long_words else rng.randint(30, 90)
        for _ in range(dwell):
            frame += 1
            path.append((row, frame))
        if row + 1 < rows:
            if rng.random() < 0.75:
                frame += 1
            path.append((row + 1, frame))
    return path


def float32s(rng, count):
    return [float(np.float32(rng.random() ** rng.choice([0.2, 1, 3]))) for _ in range(count)]


class _AlignResult:
    def __init__(self, alignments, text_token_probs):
        self.alignments = alignments
        self.text_token_probs = text_token_probs


def stand_in(path, probs, expected_text):
    """A WhisperModel `self` with faster-whisper's find_alignment over a fixed align()."""
    fake = types.SimpleNamespace(frames_per_second=100, tokens_per_second=50)

    def align(encoder_output, sot_sequence, text_tokens, num_frames, median_filter_width):
        assert [list(t) for t in text_tokens] == [expected_text], (text_tokens, expected_text)
        return [_AlignResult(path, probs)]

    fake.model = types.SimpleNamespace(align=align)
    fake.find_alignment = lambda *args, **kwargs: WhisperModel.find_alignment(fake, *args, **kwargs)
    return fake


def alignment_cases(tok, rng):
    eot = tok.token_to_id("<|endoftext|>")
    lines = []
    texts = [(language, text) for language, text in SPLIT_TEXTS] + [("en", " x"), ("en", "")]
    # A long word (over 8 and over 128 tokens: numpy's pairwise mean in both regimes).
    texts.append(("en", " " + "".join(chr(0x4E00 + 37 * k) for k in range(60))))
    texts.append(("ja", "".join(chr(0x3041 + k % 80) for k in range(140))))
    for k, (language, text) in enumerate(texts):
        tokens = tok.encode(text, add_special_tokens=False).ids
        path = random_path(rng, len(tokens) + 1, long_words=0.1)
        probs = float32s(rng, len(tokens))
        words = WhisperModel.find_alignment(stand_in(path, probs, tokens), fw(tok, language), [tokens], None, 3000)
        words = words[0] if words else []
        golden = ", ".join("{%s, %s, %s, %s, %s}" % (s(w["word"]), ids(w["tokens"]), d(w["start"]), d(w["end"]),
                                                      d(w["probability"])) for w in words)
        lines.append("{%s, %s, %s, %s, %s, {%s}}," % (s("case %d" % k), s(language), ids(tokens), floats(probs),
                                                       steps(path), golden))
    return lines


def merge_cases():
    word_lists = [
        [" (", "hello", ")", " \"", "quoted", "\"", ".", " -", " ", "x"],
        [" ¿", "Qué", "?", " “", "dijo", "”", "、", " [", " {", "a", "]", "}"],
        ["a ", ".", " b", ",", ",", " '", "c", "'", "!"],
        ["", " (", "", "x", ""],
        [" \"", " '", " ("],
        ["one"],
        [],
        [" -", "-", " --", " x", ":", "：", "。", " y", "!?"],
    ]
    lines = []
    for n, (words, prepend, append) in enumerate([(w, PREPEND, APPEND) for w in word_lists] +
                                                  [(word_lists[0], "(", "."), (word_lists[2], "", "")]):
        alignment = [dict(word=w, tokens=[100 * n + i, 100 * n + i + 50] if i % 3 == 0 else [100 * n + i])
                     for i, w in enumerate(words)]
        before = [(a["word"], list(a["tokens"])) for a in alignment]
        merge_punctuations(alignment, prepend, append)
        lines.append("{%s, %s, {%s}, {%s}}," % (
            s(prepend), s(append), ", ".join("{%s, %s}" % (s(w), ids(t)) for w, t in before),
            ", ".join("{%s, %s}" % (s(a["word"]), ids(a["tokens"])) for a in alignment)))
    return lines


def window_segments(tok, rng, seek, language):
    """One window's segments as faster-whisper splits them: text between timestamps."""
    begin = tok.get_vocab_size()  # timestamp ids: never decoded, only >= eot
    time_offset = seek / 100
    segments, position = [], rng.randint(0, 40)
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if choice < 0.1:
            text = []  # timestamps alone
        else:
            _, words = SPLIT_TEXTS[rng.randrange(len(SPLIT_TEXTS))]
            if rng.random() < 0.3 and language == "en":
                words = " Hello, world."
            text = tok.encode(words, add_special_tokens=False).ids
        end = position + rng.randint(5, 400)
        segments.append(dict(seek=seek, start=time_offset + position * 0.02, end=time_offset + end * 0.02,
                             tokens=[begin + position] + text + [begin + end]))
        position = end
    return segments


def run_window(tok, language, segments, last_speech_timestamp, fake):
    segments_in = [dict(x) for x in segments]
    returned = WhisperModel.add_word_timestamps(fake, [segments], fw(tok, language), None, 3000, PREPEND, APPEND,
                                                last_speech_timestamp)
    end = fw_utils.get_end(segments)
    segments_out = ", ".join("{%s, %s, {%s}}" % (d(x["start"]), d(x["end"]), ", ".join(
        "{%s, %s, %s, %s}" % (s(w["word"]), d(w["start"]), d(w["end"]), d(w["probability"])) for w in x["words"]))
        for x in segments)
    segments_in = ", ".join("{%d, %s, %s, %s}" % (x["seek"], d(x["start"]), d(x["end"]), ids(x["tokens"]))
                            for x in segments_in)
    return segments_in, d(returned), d(end), segments_out


def window_cases(tok, rng):
    """add_word_timestamps end to end: faster-whisper's find_alignment over fixed paths."""
    eot = tok.token_to_id("<|endoftext|>")
    lines = []
    for k in range(25):
        language = "ja" if k % 10 == 9 else "en"
        seek = rng.choice([0, 1, 2917, 3000, 12345, 60001])
        segments = window_segments(tok, rng, seek, language)
        text = [t for x in segments for t in x["tokens"] if t < eot]
        path = random_path(rng, len(text) + 1, long_words=rng.choice([0, 0.05, 0.2, 0.5]))
        probs = float32s(rng, len(text))
        last = rng.choice([0.0, seek / 100, seek / 100 - rng.random() * 10, seek / 100 + rng.random() * 5])
        segments_in, returned, end, segments_out = run_window(tok, language, segments, last,
                                                              stand_in(path, probs, text))
        lines.append("{%s, %s, {%s}, %s, %s, %s, %s, %s, {%s}}," % (
            s("window %d" % k), s(language), segments_in, floats(probs), steps(path), d(last), returned, end,
            segments_out))
    return lines


def heuristic_case(tok, name, segments, times, last, rng):
    """One window's add_word_timestamps over fixed find_alignment words: `times` gives
    each word's (start, end)."""
    eot = tok.token_to_id("<|endoftext|>")
    text = [t for x in segments for t in x["tokens"] if t < eot]
    words, word_tokens = fw(tok, "en").split_to_word_tokens(text + [eot])
    assert len(times) == len(words) - 1, (name, words)
    fixed = [dict(word=word, tokens=tokens, start=np.float64(start), end=np.float64(end),
                  probability=np.float64(rng.random()))
             for word, tokens, (start, end) in zip(words, word_tokens, times)]
    fake = types.SimpleNamespace(frames_per_second=100, find_alignment=lambda *args: [
        [dict(a, tokens=list(a["tokens"])) for a in fixed]])
    segments_in, returned, end, segments_out = run_window(tok, "en", segments, last, fake)
    golden_words = ", ".join("{%s, %s, %s, %s, %s}" % (s(a["word"]), ids(a["tokens"]), d(a["start"]), d(a["end"]),
                                                        d(a["probability"])) for a in fixed)
    return "{%s, {%s}, {%s}, %s, %s, %s, {%s}}," % (s(name), golden_words, segments_in, d(last), returned, end,
                                                     segments_out)


def heuristic_cases(tok, rng):
    """add_word_timestamps on fixed words (find_alignment stood in for): times anywhere,
    halves of a hundredth included (numpy's rounding)."""
    eot = tok.token_to_id("<|endoftext|>")
    lines = []
    for k in range(25):
        seek = rng.choice([0, 1, 2917, 12345])
        segments = window_segments(tok, rng, seek, "en")
        text = [t for x in segments for t in x["tokens"] if t < eot]
        times, time = [], rng.randrange(0, 3000) / 1000
        for _ in fw(tok, "en").split_to_word_tokens(text + [eot])[0][:-1]:
            step = rng.choice([0, 0.005, 0.015, 0.02, 0.035, 0.1, 0.3, 0.5, 1.2, 3.0]) * rng.choice([1, 1, 2, 3])
            times.append((time, time + step))
            time += step
        last = rng.choice([0.0, seek / 100, seek / 100 - rng.random() * 10, seek / 100 + rng.random() * 5])
        lines.append(heuristic_case(tok, "heuristics %d" % k, segments, times, last, rng))
    # The segment's own end when its last word runs on past it, but not below the last
    # word's start plus the median (0.7 here: durations 0.2 and 1.8), and its own start
    # when the first word starts over 0.5 s early, but not above its end less the median.
    hello = tok.encode(" Hello, world.", add_special_tokens=False).ids
    begin = tok.get_vocab_size()
    segment = dict(seek=0, start=1.0, end=1.25, tokens=[begin + 50] + hello + [begin + 62])
    lines.append(heuristic_case(tok, "segment end", [segment], [(1.0, 1.2), (1.2, 1.2), (1.2, 3.0), (3.0, 3.0)],
                                0.9, rng))
    segment = dict(seek=0, start=2.9, end=4.0, tokens=[begin + 145] + hello + [begin + 200])
    lines.append(heuristic_case(tok, "segment start", [segment], [(1.0, 3.0), (3.0, 3.0), (3.0, 3.2), (3.2, 3.2)],
                                2.9, rng))
    return lines


def _lines_run(functions, run):
    """The lines of `functions` that `run()` leaves unexecuted (the goldens must reach
    every branch of what they test)."""
    codes = {f.__code__: f for f in functions}
    seen = set()

    def tracer(frame, event, arg):
        if frame.f_code in codes:
            if event == "line":
                seen.add((frame.f_code, frame.f_lineno))
            return tracer
        return None

    sys.settrace(tracer)
    try:
        result = run()
    finally:
        sys.settrace(None)
    missed = []
    for code, function in codes.items():
        source, first = inspect.getsourcelines(function)
        body = {line for _, _, line in code.co_lines() if line is not None and line > first}
        missed += ["%s:%d %s" % (function.__name__, line, source[line - first].strip())
                   for line in sorted(body - {l for c, l in seen if c == code})]
    return result, missed


# Lines no golden can reach: add_word_timestamps' early return on no segments and
# find_alignment's on no windows (one window is always passed), and find_alignment's
# second test for no words (the first, on the eot alone, already returned).
_UNREACHED = {"add_word_timestamps: return", "find_alignment: return []", "find_alignment: return_list.append([])",
              "find_alignment: continue"}


def main() -> None:
    out_dir = sys.argv[1]
    rng = random.Random(49)
    tok = train_tokenizer()
    tok.save(os.path.join(out_dir, "word_timing_tokenizer.json"))
    eot = tok.token_to_id("<|endoftext|>")
    tested = [WhisperModel.add_word_timestamps, WhisperModel.find_alignment, merge_punctuations,
              fw_tokenizer.Tokenizer.split_tokens_on_unicode, fw_tokenizer.Tokenizer.split_tokens_on_spaces]
    sections, missed = _lines_run(tested, lambda: [
        ("kEot", "const int64_t kEot = %d;" % eot),
        ("kSplitCases", split_cases(tok, rng)),
        ("kAlignmentCases", alignment_cases(tok, rng)),
        ("kMergeCases", merge_cases()),
        ("kWindowCases", window_cases(tok, rng)),
        ("kHeuristicCases", heuristic_cases(tok, rng)),
    ])
    missed = [m for m in missed if not any(m.startswith(u.split(": ")[0]) and m.endswith(u.split(": ")[1])
                                           for u in _UNREACHED)]
    assert not missed, "lines the goldens do not reach:\n" + "\n".join(missed)
    types_of = {"kSplitCases": "SplitCase", "kAlignmentCases": "AlignmentCase", "kMergeCases": "MergeCase",
                "kWindowCases": "WindowCase", "kHeuristicCases": "HeuristicCase"}
    text = ["// Generated by cc/whisper/gen_word_timing_golden.py from faster-whisper's own functions",
            "// on word_timing_tokenizer.json; do not edit."]
    for name, body in sections:
        if isinstance(body, str):
            text.append(body)
        else:
            text.append("const std::vector<%s> %s = {" % (types_of[name], name))
            text.extend(body)
            text.append("};")
    with open(os.path.join(out_dir, "word_timing_golden.inc"), "w", encoding="utf-8") as out:
        out.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
