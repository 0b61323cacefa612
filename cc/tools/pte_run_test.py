"""pte_run end to end on //models:stateful_pte: listing, calls, profiling, threads, and
a specific message with a non-zero exit (never a crash) for each kind of bad input."""

import subprocess

from runfiles import runfiles

from pteforge.support import testing

import pytest

_RUNFILES = runfiles.Create()
PTE_RUN = _RUNFILES.Rlocation("pteforge/cc/tools/pte_run")
MODEL = _RUNFILES.Rlocation("pteforge/models/stateful.pte")


def run(*args, model=MODEL):
    command = [PTE_RUN] + ([f"--model={model}"] if model else []) + list(args)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode >= 0, f"pte_run was killed by signal {-result.returncode}: {result.stderr}"
    return result


def test_list_shows_methods_state_and_memory():
    result = run("--list")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "  set_cache(rows: float32[1..4, 8]) -> (int64[1])\n" in out  # argument names from the metadata
    assert "  get_cache(x: float32[4, 8]) -> (float32[4, 8])\n" in out
    assert "  accumulate(x: float32[4, 8]) -> (float32[1, 8])\n" in out
    assert "  max_rows = int = 4\n" in out
    assert "cache  shared   float32[4, 8]" in out and "calls  private  int64[1]" in out
    assert "state arena  144 B" in out and "one arena per method would need" in out


def test_set_then_get_prints_the_values_set():
    result = run("--call=set_cache(values(1,2,3,4,5,6,7,8)[1,8])", "--call=get_cache(zeros[4,8])")
    assert result.returncode == 0, result.stderr
    assert "output 0: int64[1] = [1]" in result.stdout
    assert ("output 0: float32[4, 8] = [[1, 2, 3, 4, 5, 6, 7, 8], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]"
            in result.stdout)


def test_calls_file_threads_and_etdump(tmp_path):
    calls = tmp_path / "calls.txt"
    calls.write_text("# fill two rows, then read\nset_cache(full(3)[2,8])\n\nget_cache(ones[4,8])\n")
    profile = tmp_path / "profile.etdp"
    result = run(f"--calls={calls}", "--threads=2", f"--etdump={profile}")
    assert result.returncode == 0, result.stderr
    assert "[2] get_cache(ones[4,8])\n    output 0: float32[4, 8] = [[4, 4, 4, 4, 4, 4, 4, 4]" in result.stdout
    from executorch.devtools import Inspector

    inspector = Inspector(etdump_path=str(profile))
    events = {event.name for block in inspector.event_blocks for event in block.events}
    assert "Method::execute" in events


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_bad_model_files(tmp_path):
    with open(MODEL, "rb") as f:
        good = f.read()
    corrupted = bytearray(good)
    for i in range(64, len(corrupted), 7):
        corrupted[i] ^= 0x5A
    cases = {
        str(tmp_path / "missing.pte"): "cannot open",
        _write(tmp_path, "empty.pte", b""): "is empty, not an ExecuTorch program",
        _write(tmp_path, "truncated.pte", good[: len(good) // 2]): "is not a valid ExecuTorch program",
        _write(tmp_path, "corrupted.pte", bytes(corrupted)): "is not a valid ExecuTorch program",
        str(tmp_path): "is not a regular file",
    }
    for path, message in cases.items():
        result = run("--list", model=path)
        assert result.returncode == 1, (path, result.stderr)
        assert f"pte_run: error: " in result.stderr and message in result.stderr, (path, result.stderr)


@pytest.mark.parametrize("call, message", [
    ("nope(zeros[4,8])", "no method 'nope' in the program (its methods: set_cache, get_cache, accumulate)"),
    ("get_cache(zeros[4,8], zeros[4,8])", "method 'get_cache' takes 1 inputs, got 2"),
    ("set_cache(zeros[2,8]:int64)", "method 'set_cache', input 0: expected dtype float32, got int64"),
    ("set_cache(zeros[8])", "method 'set_cache', input 0: expected rank 2 [4, 8], got rank 1 [8]"),
    ("set_cache(zeros[5,8])", "method 'set_cache', input 0: dimension 0 is 5, beyond its dynamic bound 4 (shape [5, 8])"),
    ("get_cache(zeros[4,7])", "method 'get_cache', input 0: dimension 1 is 7, but must be 8 (shape [4, 7])"),
])
def test_bad_calls(call, message):
    result = run("--call=set_cache(ones[1,8])", f"--call={call}")
    assert result.returncode == 1, result.stderr
    assert f"pte_run: error: call 2, {call}: {message}" in result.stderr
    assert "[1] set_cache(ones[1,8])" in result.stdout  # calls before the bad one ran


@pytest.mark.parametrize("args, message", [
    (["--list", "--bogus"], "unknown flag --bogus"),
    (["--call=get_cache(zeros[4,8]"], "cannot parse 'get_cache(zeros[4,8]' at column"),
    ([], "nothing to do: give --list, --call or --calls"),
    (["--list", "--threads=0"], "--threads=0: expected an integer from 1 to 256"),
    (["--list", "stray"], "unexpected argument 'stray'"),
])
def test_bad_flags_exit_2(args, message):
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr


def test_model_is_required():
    result = run("--list", model=None)
    assert result.returncode == 2 and "--model is required" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
