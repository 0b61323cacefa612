"""Trains small tokenizers with Hugging Face `tokenizers` and writes what the C++
tokenizer must reproduce (a build action: //cc/text/testdata:golden).

For each tokenizer NAME it writes into OUTPUT_DIR:
  NAME.tokenizer.json  the tokenizer, as tokenizers saves it
  NAME.golden.json     {"vocab_size": N, "token_ids": {added token: id},
                        "id_tokens": {id: token} (the first and last 50 ids),
                        "cases": [{"text", "ids", "ids_plain", "decoded",
                                   "decoded_with_special"}],
                        "decode_cases": [{"ids", "decoded", "decoded_with_special"}]}
where ids = encode(text).ids, ids_plain = encode(text, add_special_tokens=False).ids,
decoded / decoded_with_special = decode(ids, skip_special_tokens=True / False), and
decode_cases are random id sequences (broken UTF-8, byte tokens, special tokens).

Everything is deterministic (fixed seeds); nothing is downloaded: the training text is
the repository's corpora plus text made here.

Usage: make_golden.py OUTPUT_DIR CORPUS_FILE...

gpt2, qwen2 and llama2 (with a smaller vocab_size) also train the tokenizers of the
tiny test language models (models/llm/make_tiny_model.py).
"""

import collections
import json
import os
import random
import sys
import unicodedata

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
from tokenizers import pre_tokenizers, processors, trainers

GPT2_PATTERN = None  # ByteLevel's own (use_regex=True)
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                 r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
CLIP_PATTERN = (r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"
                r"|[^\s\p{L}\p{N}]+")

MULTILINGUAL = [
    "東京は日本の首都です。", "我爱自然语言处理，也喜欢写代码。", "한국어 문장도 있습니다.",
    "Привет, как дела? Всё хорошо!", "Съешь же ещё этих мягких французских булок.",
    "مرحبا بالعالم، كيف حالك؟", "שלום עולם, מה שלומך?", "नमस्ते दुनिया, आप कैसे हैं?",
    "สวัสดีครับ ยินดีที่ได้รู้จัก", "Γειά σου κόσμε, τι κάνεις;", "Ça va? Où est l'hôtel?",
    "Ünïcödé façade naïve coöperate jalapeño São Paulo Ærøskøbing", "ẞtraße Maße Fuß ﬁnance ﬂow",
    "emoji 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇫🇷🇯🇵🇺🇸 1️⃣ ❤️ 🤖🧠", "Zalgo: Z̴̡a̷l̸g̶o̵ t̷e̵x̶t̴",
    "数字 ١٢٣ ४५६ １２３ ½ ² Ⅻ", "日本語とEnglishのmixed文章です", "Ελληνικά και русский и English",
]
SPECIALS = [
    "<|endoftext|>", "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>",
    "<|end_header_id|>", "<|im_start|>", "<|im_end|>", "<s>", "</s>", "<unk>", "[CLS]", "[SEP]",
    "<mask>", "<tag>", "Hello World", "<|startoftext|>",
]
CODE = [
    "def f(x):\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    '{"key": [1, 2.5, null], "nested": {"a": "b"}}',
    "if [[ -z \"$HOME\" ]]; then echo 'no home' >&2; fi",
    "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;",
    "x=1;y=2\r\nprint(x+y)\r\n",
    "    indented\n        more\n\t\ttabs\n",
    "<html><body class=\"main\">Hello &amp; bye</body></html>",
    "std::vector<int64_t> ids = tokenizer.Encode(\"hi\").value();",
    "a->b; c::d; e=>f; g!=h; i<=j; k>>=2; l||m; n&&o",
]
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M", "'LL",
                "'D", "'Re", "'ſ", "’s", "'x"]
WHITESPACE = [" ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", "\r", "\u00a0", "\u3000", "\u2003", "\x0b",
              "\x0c", "\u0085", "\u2028", " \n ", "\t \t"]


def read_corpus(paths):
    lines = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines.extend(line.rstrip("\n") for line in f if line.strip())
    return lines


def random_code_point(rng):
    """A code point assigned in Python's Unicode (14.0): newer ones are unassigned for the
    C++ tables (docs/tokenizer.md)."""
    ranges = [(0x20, 0x7E), (0x00, 0x1F), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x52F),
              (0x590, 0x6FF), (0x900, 0x97F), (0x1100, 0x11FF), (0x2000, 0x206F), (0x3040, 0x30FF),
              (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xFB00, 0xFFFD), (0x1F300, 0x1FAFF),
              (0x10000, 0x10FFFF)]
    while True:
        low, high = rng.choice(ranges)
        cp = rng.randint(low, high)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if unicodedata.category(chr(cp)) != "Cn":
            return chr(cp)


def make_texts(corpus, seed):
    rng = random.Random(seed)
    texts = ["", " ", "  ", "\n", "a", "A", "0", "é", "中", "👍", "Hello world", " Hello world",
             "Hello  world ", "\tleading tab", "trailing newline\n", "\r\n\r\n", "x" * 300,
             "9" * 50, "." * 40, " " * 100 + "x", "x" + " " * 100]
    # Special tokens first, last, alone, doubled and next to spaces.
    for special in SPECIALS:
        texts += [special, special + "Hi there", " " + special + " hi ", "hi " + special, special * 2,
                  special + "\n" + special + " x"]
    texts += rng.sample(corpus, min(300, len(corpus)))
    accented = [line for line in corpus if any(ord(c) > 127 for c in line)]
    for line in rng.sample(accented, min(100, len(accented))):
        texts.append(unicodedata.normalize("NFD", line))
    texts += MULTILINGUAL + [unicodedata.normalize("NFD", t) for t in MULTILINGUAL]
    for _ in range(100):
        texts.append(" ".join(" ".join(rng.choice(MULTILINGUAL + corpus[:50]).split()[:6]) for _ in range(2)))
    words = " ".join(corpus[:200]).split()
    for _ in range(120):
        parts = []
        for _ in range(rng.randint(1, 8)):
            parts.append(rng.choice(WHITESPACE) if rng.random() < 0.5 else rng.choice(words))
        texts.append("".join(parts))
    for _ in range(70):
        kind = rng.random()
        if kind < 0.4:
            texts.append("".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40))))
        elif kind < 0.7:
            texts.append(f"{rng.randint(0, 10**9):,}.{rng.randint(0, 99):02d} and {rng.random() * 1000:.4f}")
        else:
            texts.append(f"call +1 ({rng.randint(100, 999)}) {rng.randint(100, 999)}-{rng.randint(1000, 9999)} "
                         f"on 2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    texts += CODE
    for _ in range(40):
        texts.append(rng.choice(CODE).replace("    ", rng.choice(["  ", "\t", "        "])))
    for _ in range(80):
        word = rng.choice(["I", "you", "YOU", "they", "We", "it", "SHE", "don", "Can"])
        texts.append(word + rng.choice(CONTRACTIONS) + rng.choice(["", " ", " go", "n't", "!"]))
    for _ in range(130):
        pieces = [rng.choice(words)]
        for _ in range(rng.randint(1, 4)):
            pieces.append(rng.choice(SPECIALS))
            pieces.append(rng.choice(["", " ", "  ", "\n", rng.choice(words), " " + rng.choice(words) + " "]))
        texts.append("".join(pieces))
    for _ in range(150):
        texts.append("".join(random_code_point(rng) for _ in range(rng.randint(1, 12))))
    for _ in range(3):
        texts.append(" ".join(rng.sample(corpus, 30)))
    return texts


def train(tokenizer, corpus, vocab_size, special_tokens, **kwargs):
    if "limit_alphabet" in kwargs:
        # The trainer keeps the most frequent characters, but breaks ties between equal
        # counts in hash order, which differs between runs: a build made a different
        # vocabulary each time. Naming them (most frequent first, ties by code point)
        # makes the result the same every run.
        kwargs["initial_alphabet"] = _alphabet(tokenizer, corpus, kwargs["limit_alphabet"])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special_tokens, show_progress=False,
                                  min_frequency=2, **kwargs)
    tokenizer.train_from_iterator(corpus, trainer)
    return tokenizer


def _alphabet(tokenizer, corpus, limit):
    counts = collections.Counter()
    for line in corpus:
        text = tokenizer.normalizer.normalize_str(line) if tokenizer.normalizer else line
        if tokenizer.pre_tokenizer:
            text = "".join(piece for piece, _ in tokenizer.pre_tokenizer.pre_tokenize_str(text))
        counts.update(text)
    return [char for char, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]]


def with_json(tokenizer, edit):
    """The tokenizer with its JSON changed by edit(dict)."""
    data = json.loads(tokenizer.to_str())
    edit(data)
    return Tokenizer.from_str(json.dumps(data, ensure_ascii=False))


def reorder_vocab(data, first_tokens):
    """Puts first_tokens at ids 0.. (adding the missing ones), the rest after in order."""
    vocab = data["model"]["vocab"]
    order = list(first_tokens) + [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if t not in first_tokens]
    data["model"]["vocab"] = {t: i for i, t in enumerate(order)}
    for added in data["added_tokens"]:
        added["id"] = data["model"]["vocab"][added["content"]]


def gpt2(corpus, vocab_size=3000):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return train(tok, corpus, vocab_size, ["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())


def roberta(corpus):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    train(tok, corpus, 2000, ["<s>", "<pad>", "</s>", "<unk>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return tok


def llama3(corpus):
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    train(tok, corpus, 3000, specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                      pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)]),
    ])

    def edit(data):
        data["model"]["ignore_merges"] = True
        # Whole words with no merges leading to them: only ignore_merges finds them.
        vocab = data["model"]["vocab"]
        next_id = max(vocab.values()) + 1
        for word in ["Ġtokenizer", "Ġhello", "ĠHello", "Ġthe", "Ġworld", "Ġand", "ing", "Ġ123", "Ġ\u00e6\u0141\u00b1"]:
            if word not in vocab:
                vocab[word] = next_id
                next_id += 1
    return with_json(tok, edit)


def qwen2(corpus, vocab_size=3000):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return train(tok, corpus, vocab_size, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                 initial_alphabet=pre_tokenizers.ByteLevel.alphabet())


def llama2(corpus, vocab_size=2500):
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    train(tok, corpus, vocab_size, ["<unk>", "<s>", "</s>"], limit_alphabet=120, max_token_length=16)

    def edit(data):
        reorder_vocab(data, ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)])
        data["post_processor"] = {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
        }
    return with_json(tok, edit)


def metaspace_bert(corpus):
    tok = Tokenizer(models.BPE(unk_token="[UNK]", fuse_unk=False))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True),
        pre_tokenizers.Digits(individual_digits=True),
    ])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    train(tok, corpus, 2000, ["[UNK]", "[CLS]", "[SEP]"], limit_alphabet=80)
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=True, special=True)])
    tok.add_tokens([AddedToken("Hello World", single_word=True, normalized=True),
                    AddedToken("<tag>", normalized=False, rstrip=True)])
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                   ("[CLS]", tok.token_to_id("[CLS]")))
    return tok


def clip_like(corpus):
    tok = Tokenizer(models.BPE(unk_token="<|endoftext|>", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "),
                                           normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(CLIP_PATTERN), behavior="removed", invert=True)
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    train(tok, corpus, 2000, ["<|startoftext|>", "<|endoftext|>"], end_of_word_suffix="</w>", limit_alphabet=100)
    start, end = tok.token_to_id("<|startoftext|>"), tok.token_to_id("<|endoftext|>")
    tok.post_processor = processors.TemplateProcessing(
        single="<|startoftext|> $A <|endoftext|>", pair="<|startoftext|> $A <|endoftext|> $B:1 <|endoftext|>:1",
        special_tokens=[("<|startoftext|>", start), ("<|endoftext|>", end)])
    return tok


TOKENIZERS = {
    "gpt2": gpt2, "roberta": roberta, "llama3": llama3, "qwen2": qwen2, "llama2": llama2,
    "metaspace_bert": metaspace_bert, "clip_like": clip_like,
}


def main():
    output_dir, corpus_paths = sys.argv[1], sys.argv[2:]
    corpus = read_corpus(corpus_paths)
    training = corpus + MULTILINGUAL * 20 + CODE * 10
    texts = make_texts(corpus, seed=1234)
    os.makedirs(output_dir, exist_ok=True)
    for name, build in TOKENIZERS.items():
        tok = build(training)
        tok.save(os.path.join(output_dir, f"{name}.tokenizer.json"))
        tok = Tokenizer.from_file(os.path.join(output_dir, f"{name}.tokenizer.json"))
        cases = []
        for text in texts:
            ids = tok.encode(text).ids
            cases.append({
                "text": text,
                "ids": ids,
                "ids_plain": tok.encode(text, add_special_tokens=False).ids,
                "decoded": tok.decode(ids, skip_special_tokens=True),
                "decoded_with_special": tok.decode(ids, skip_special_tokens=False),
            })
        rng = random.Random(name)
        vocab_size = tok.get_vocab_size()
        all_ids = sorted(tok.get_vocab().values())
        decode_cases = []
        for _ in range(200):
            ids = [rng.choice(all_ids) for _ in range(rng.randint(1, 20))]
            decode_cases.append({"ids": ids, "decoded": tok.decode(ids, skip_special_tokens=True),
                                 "decoded_with_special": tok.decode(ids, skip_special_tokens=False)})
        special_names = [t.content for t in tok.get_added_tokens_decoder().values()]
        golden = {
            "vocab_size": vocab_size,
            "token_ids": {t: tok.token_to_id(t) for t in special_names},
            "id_tokens": {str(i): tok.id_to_token(i) for i in all_ids[:50] + all_ids[-50:]},
            "cases": cases,
            "decode_cases": decode_cases,
        }
        with open(os.path.join(output_dir, f"{name}.golden.json"), "w", encoding="utf-8") as f:
            json.dump(golden, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
