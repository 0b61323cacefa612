"""The translator (opus_translate's program) on the tiny random OPUS-MT model: output per sentence, the untrained-weights
warning, and a clear message (never a crash) for bad sentences and flags."""

import subprocess

from runfiles import runfiles

from pteforge.support import testing

import pytest

_RUNFILES = runfiles.Create()
TRANSLATE = _RUNFILES.Rlocation("pteforge/cc/tools/translate")
MODEL = _RUNFILES.Rlocation("pteforge/models/opus_tiny.pte")


def run(*args, stdin=None, model=MODEL):
    command = [TRANSLATE] + ([f"--model={model}"] if model else []) + list(args)
    result = subprocess.run(command, input=stdin, capture_output=True, timeout=300)
    assert result.returncode >= 0, f"killed by signal {-result.returncode}"
    return result.returncode, result.stdout.decode(), result.stderr.decode()


def test_translates_arguments_and_warns_about_random_weights():
    status, out, err = run("--print_ids", "--beams=2", "Hello world.", "Where is the train station?")
    assert status == 0, err
    assert "opus-mt-tiny (UNTRAINED random weights), 2 beam(s)" in err
    assert "WARNING: this model has UNTRAINED random weights" in err and "NOT a translation" in err
    lines = out.splitlines()
    assert len(lines) == 6  # text, source ids, output ids per sentence
    assert lines[1].startswith("  source ids: ") and lines[1].endswith(" 0")  # ends with </s>
    assert lines[2].startswith("  output ids: ")


def test_stdin_lines_with_bad_ones_keep_alignment():
    text = b"Hello world.\n\n\xff\xfe broken\nThe weather is nice today.\n" + b"word " * 80 + b"\n"
    status, out, err = run("--beams=1", stdin=text)
    assert status == 1
    assert out.count("\n") == 5  # one output line per input line
    assert out.split("\n")[1] == "" and out.split("\n")[2] == ""
    assert "line 2" not in err  # blank: translates to itself
    assert "line 3: the text is not valid UTF-8 (bad byte 0xff at offset 0)" in err
    # Longer than the model's 64 tokens: translated in pieces, not refused.
    assert out.split("\n")[4] and "line 5" not in err


@pytest.mark.parametrize("args, status, message", [
    (["--beams=9", "Hi"], 1, "9 beams do not fit: the model decodes at most 8 rows at once"),
    (["--max_length=100", "Hi"], 1, "max_length 100 exceeds the model's limit of 24 tokens"),
    (["--beams=x", "Hi"], 2, "--beams=x: expected an integer"),
    (["--nope"], 2, "unknown flag --nope"),
])
def test_bad_options(args, status, message):
    code, _, err = run(*args)
    assert code == status and message in err, err


def test_bad_model_file(tmp_path):
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a model")
    code, _, err = run("Hi", model=str(bad))
    assert code == 1 and "is not a valid ExecuTorch program" in err
    code, _, err = run("Hi", model=_RUNFILES.Rlocation("pteforge/models/stateful.pte"))
    assert code == 1 and "is not a translation model: constant 'family'" in err


def test_etdump(tmp_path):
    profile = tmp_path / "p.etdp"
    code, _, err = run(f"--etdump={profile}", "--threads=2", "Hello.")
    assert code == 0, err
    assert profile.stat().st_size > 0


if __name__ == "__main__":
    testing.main(__file__)
