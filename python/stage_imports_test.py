"""stage_imports.py, the check each stage's build runs: an import of a stage above,
of a stage not declared, or of the package root's names fails, naming the file and the
line; imports of the stage itself, of the stages it declares and of other packages pass."""

import stage_imports

from pteforge.support import testing

import pytest

STAGES = ["support", "capture", "lower/speedups", "lower", "verify"]


def _run(tmp_path, text, stage="lower", may_import=("support", "lower/speedups"), where="lower/x.py"):
    source = tmp_path / "python" / "pteforge" / where
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text)
    out = tmp_path / "imports.txt"
    status = stage_imports.main([f"--stage={stage}", f"--may_import={','.join(may_import)}",
                                 f"--stages={','.join(STAGES)}", f"--out={out}", str(source)])
    return status, out


def test_imports_of_its_own_stage_of_declared_ones_and_of_other_packages_pass(tmp_path):
    status, out = _run(tmp_path, "import os\nimport torch\n"
                                 "from pteforge.lower.fold import fold_constants\n"
                                 "from pteforge.lower import speedups\n"
                                 "from pteforge.support import errors\n"
                                 "from . import sibling\n")
    assert status == 0
    assert out.read_text().endswith("x.py: lower, lower/speedups, support\n")


def test_an_import_of_a_higher_stage_fails_with_the_file_and_line(tmp_path, capsys):
    status, out = _run(tmp_path, "import torch\n\nfrom pteforge.verify.conformance import check_conformance\n")
    assert status == 1
    assert not out.exists()
    error = capsys.readouterr().err
    assert "lower/x.py:3: the lower stage imports pteforge.verify.conformance.check_conformance, in the " \
           "verify stage above it" in error
    assert "(support, lower/speedups, bazel/stages.bzl)" in error


@pytest.mark.parametrize("text, message", [
    # A lazy import inside a function is a dependency too.
    ("def f():\n    from pteforge.verify import replay\n    return replay\n",
     "lower/x.py:2: the lower stage imports pteforge.verify.replay, in the verify stage above it"),
    ("import pteforge.capture.capture\n", "in the capture stage, which it does not declare"),
    ("from pteforge import MultiMethodExporter\n", "a name of the package root"),
    # Resolved against the source's package, pteforge.lower.
    ("from ..verify import replay\n", "imports pteforge.verify.replay, in the verify stage"),
])
def test_other_imports_of_pteforge_fail(tmp_path, capsys, text, message):
    status, out = _run(tmp_path, text)
    assert status == 1
    assert not out.exists()
    assert message in capsys.readouterr().err


def test_the_longest_stage_path_names_the_stage():
    assert stage_imports.stage_of("pteforge.lower.speedups.shortcuts", STAGES) == "lower/speedups"
    assert stage_imports.stage_of("pteforge.lower.lowering", STAGES) == "lower"
    assert stage_imports.stage_of("pteforge.lowering", STAGES) == ""
    assert stage_imports.stage_of("torch.export", STAGES) is None


if __name__ == "__main__":
    testing.main(__file__)
