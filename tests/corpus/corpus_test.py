"""The corpus of stateful patterns: each exports (conformance passing) or is refused
with its expected ExportError on each backend, then random call sequences compare
eager PyTorch with the runtime after every call, in Python (ExecuTorch's Python
runtime) and through the C++ Session (pte_replay replays the same calls).

    corpus_test [--sequences=N] [--calls=L]     (default 2 sequences of 12 calls)
"""

import os
import subprocess
import sys

import torch
from runfiles import runfiles

from pteforge import ExportError, MultiMethodExporter
from pteforge.support import testing
from tests.corpus.corpus_models import CASES

import pytest

SEQUENCES = int(os.environ.get("PTEFORGE_CORPUS_SEQUENCES", "2"))
CALLS = int(os.environ.get("PTEFORGE_CORPUS_CALLS", "12"))

# The replay record holds these dtypes (pteforge.verify.replay); state of others is checked
# in Python only.
_REPLAYABLE = {torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
               torch.int16, torch.int8, torch.uint8, torch.bool}


def _exporter(case):
    exporter = MultiMethodExporter(case.build(), name=case.name).shared_state(*case.shared)
    for method in case.methods:
        exporter.method(method.name, method.example_args, method.dynamic_shapes, method.input_ranges)
    return exporter


def _replayable(module) -> bool:
    return all(t.dtype in _REPLAYABLE for t in module.buffers())


def _pte_replay(pte: str, replay: str) -> subprocess.CompletedProcess:
    binary = runfiles.Create().Rlocation("pteforge/cc/tools/pte_replay")
    return subprocess.run([binary, f"--model={pte}", f"--replay={replay}"], capture_output=True, text=True,
                          timeout=300)


_PARAMS = [pytest.param(case, backend, id=f"{case.name}-{backend}")
           for case in CASES for backend in sorted(set(case.backends) | set(case.refused))]


@pytest.mark.parametrize("case,backend", _PARAMS)
def test_pattern(case, backend, tmp_path, capsys):
    exporter = _exporter(case)
    if backend in case.refused:
        with pytest.raises(ExportError, match=case.refused[backend]):
            exporter.export(backend=backend, tolerance=case.tolerance)
        with capsys.disabled():  # the counts go to the test log, passed or not
            print(f"\ncorpus: {case.name} [{backend}]: refused as expected")
        return
    program = exporter.export(backend=backend, tolerance=case.tolerance)
    pte = tmp_path / f"{case.name}.pte"
    pte.write_bytes(program.data)
    in_cpp = _replayable(exporter.module)
    values = 0
    for seed in range(SEQUENCES):
        calls = exporter.random_calls(CALLS, seed)
        result = exporter.check(program, calls, record_replay=in_cpp)
        values += result.values_compared
        if in_cpp:
            replay = tmp_path / f"{case.name}.{seed}.replay.txt"
            replay.write_text(result.replay)
            replayed = _pte_replay(str(pte), str(replay))
            assert replayed.returncode == 0, (
                f"seed {seed}: the C++ Session differs from eager PyTorch:\n{replayed.stderr}{replayed.stdout}")
    where = "Python and C++ Session" if in_cpp else "Python only (dtype not in the replay format)"
    with capsys.disabled():
        print(f"\ncorpus: {case.name} [{backend}]: {SEQUENCES} random sequences x {CALLS} calls, "
              f"{values} values compared in {where}")


if __name__ == "__main__":
    for flag in sys.argv[1:]:
        name, _, value = flag.lstrip("-").partition("=")
        if name in ("sequences", "calls"):
            os.environ[f"PTEFORGE_CORPUS_{name.upper()}"] = value
    testing.main(__file__)
