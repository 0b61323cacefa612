"""The command line: stages and summary on success; a clear message, a non-zero exit
and no output file on every kind of failure.

Two tests run the real `python -m pteforge.export` in a subprocess; the failure cases
call cli.main in-process (same code after flag parsing) to avoid re-importing torch.
"""

import json
import os
import subprocess
import sys

from absl import flags
from absl.flags import IllegalFlagValueError

from pteforge.cli import export as cli
from pteforge.support import testing

import pytest


def _run_subprocess(tmp_path, *args):
    command = [sys.executable, "-m", "pteforge.export", *args, f"--out={tmp_path / 'model.pte'}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def _run_in_process(capsys, *args):
    flags.FLAGS.unparse_flags()
    argv = flags.FLAGS(["export", *args], known_only=False)
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_export_writes_the_pte_and_report_and_prints_stages(tmp_path):
    result = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_with_args",
                             "--model_args=fill=0.25")
    assert result.returncode == 0, result.stderr
    for stage in ("export set", "export get", "export accumulate", "to_edge and lowering (portable)",
                  "memory planning and emission", "verification"):
        assert f"pteforge: {stage}: " in result.stderr
    assert "planned memory" in result.stdout and "conformance: 6 calls" in result.stdout
    assert (tmp_path / "model.pte").stat().st_size > 0
    report = json.loads((tmp_path / "model.report.json").read_text())
    assert report["name"] == "cache" and report["backend"] == "portable"


def test_a_failed_export_exits_1_and_writes_nothing(tmp_path):
    result = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_branchy")
    assert result.returncode == 1
    assert "pteforge: export failed: method 'choose': data-dependent control flow" in result.stderr
    assert os.listdir(tmp_path) == []


def _third_party_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("pteforge:")]


def test_a_successful_export_prints_only_pteforges_lines(tmp_path):
    # The model makes torch, torchao and ExecuTorch's C++ runtime print (--verbose shows
    # it), so the quiet run proves that their output is held back.
    verbose = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_noisy", "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    shown = "\n".join(_third_party_lines(verbose.stderr))
    assert "a warning from inside a traced method" in shown and "cpuinfo" in shown, shown
    quiet = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_noisy")
    assert quiet.returncode == 0, quiet.stderr
    assert _third_party_lines(quiet.stderr) == []
    assert "pteforge: verification: " in quiet.stderr and "conformance: " in quiet.stdout


def test_a_failed_export_prints_only_the_error(tmp_path):
    def others(stderr):
        return [line for line in _third_party_lines(stderr) if line != "(no .pte was written)"]

    verbose = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_branchy", "--verbose")
    assert verbose.returncode == 1 and others(verbose.stderr)  # torch dumps the graph it traced
    result = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_branchy")
    assert result.returncode == 1
    assert others(result.stderr) == []
    assert "pteforge: export failed: method 'choose': data-dependent control flow" in result.stderr


def test_unknown_flag_exits_non_zero(tmp_path):
    result = _run_subprocess(tmp_path, "--model=pteforge.program.testing_models:make_cache", "--bakend=xnnpack")
    assert result.returncode != 0 and "Unknown command line flag 'bakend'" in result.stderr
    assert os.listdir(tmp_path) == []


def test_report_flag_and_xnnpack(tmp_path, capsys):
    status, out, err = _run_in_process(
        capsys, "--model=pteforge.program.testing_models:make_cache", "--backend=xnnpack",
        f"--out={tmp_path / 'm.pte'}", f"--report={tmp_path / 'r.json'}")
    assert status == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["backend"] == "xnnpack"
    assert sorted(os.listdir(tmp_path)) == ["m.pte", "r.json"]


@pytest.mark.parametrize("args, message", [
    (["--model=pteforge.program.testing_models"], "expected package.module:function"),
    (["--model=no.such.module:f"], "cannot import no.such.module"),
    (["--model=pteforge.program.testing_models:nope"], "has no function 'nope'. Its functions are:"),
    (["--model=pteforge.program.testing_models:make_not_an_exporter"], "returned str, not a MultiMethodExporter"),
    (["--model=pteforge.program.testing_models:make_raising"],
     "the factory raised RuntimeError: the checkpoint is missing"),
    (["--model=pteforge.program.testing_models:make_with_args", "--model_args=oops"], "expected key=value"),
    (["--model=pteforge.program.testing_models:make_cache", "extra"], "unexpected arguments: extra"),
])
def test_usage_errors_exit_2_and_write_nothing(tmp_path, capsys, args, message):
    status, _, err = _run_in_process(capsys, *args, f"--out={tmp_path / 'm.pte'}")
    assert status == 2
    assert message in err
    assert os.listdir(tmp_path) == []


def test_bad_backend_is_rejected_by_the_flag_parser():
    with pytest.raises(IllegalFlagValueError, match="value should be one of <portable|xnnpack>"):
        flags.FLAGS(["export", "--backend=gpu"])


def test_missing_out_and_missing_folder(tmp_path, capsys):
    status, _, err = _run_in_process(capsys, "--model=pteforge.program.testing_models:make_cache")
    assert status == 2 and "--out is required" in err
    status, _, err = _run_in_process(
        capsys, "--model=pteforge.program.testing_models:make_cache", f"--out={tmp_path / 'missing' / 'm.pte'}")
    assert status == 2 and "does not exist" in err


if __name__ == "__main__":
    testing.main(__file__)
