"""The ThreadSanitizer build is real: race_canary races on purpose, and built with
--config=tsan it must be reported (exit 66, "data race" naming the canary's line).
Without the config this test fails and says so: it only makes sense in the suite
./bazelw test --config=tsan //tests/threads:tsan."""

import subprocess

from runfiles import runfiles

from pteforge.support import testing

CANARY = runfiles.Create().Rlocation("pteforge/tests/threads/race_canary")


def test_the_deliberate_race_is_reported():
    result = subprocess.run([CANARY], capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("instrumented"), \
        "race_canary is not built with ThreadSanitizer: run this suite with --config=tsan"
    assert result.returncode == 66, result.stderr
    assert "WARNING: ThreadSanitizer: data race" in result.stderr
    assert "race_canary.cc" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
