"""tools/build_profile: the action time of a Bazel profile by kind, and a bad file refused."""

import gzip
import json

import pytest

from pteforge.support import testing
from tools.build_profile import build_profile

# The shape of Bazel 4.2.3's trace events: metadata, actions, and other categories.
_EVENTS = [
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "skyframe-evaluator 0"}},
    {"cat": "action processing", "name": "Compiling cc/a.cc", "ph": "X", "ts": 0, "dur": 2_000_000, "tid": 1},
    {"cat": "action processing", "name": "Compiling cc/b.cc", "ph": "X", "ts": 0, "dur": 1_000_000, "tid": 2},
    {"cat": "action processing", "name": "Testing //a:a_test", "ph": "X", "ts": 0, "dur": 5_500_000, "tid": 1},
    {"cat": "skyframe evaluator", "name": "ActionExecution", "ph": "X", "ts": 0, "dur": 9_000_000, "tid": 1},
]


def test_actions_are_summed_by_the_first_word_of_their_message():
    timed = build_profile.actions({"traceEvents": _EVENTS})
    assert timed == [("Compiling cc/a.cc", 2.0), ("Compiling cc/b.cc", 1.0), ("Testing //a:a_test", 5.5)]
    assert build_profile.by_kind(timed) == [("Testing", 5.5, 1), ("Compiling", 3.0, 2)]


def test_the_command_prints_kinds_and_the_longest_actions(tmp_path, capsys):
    path = tmp_path / "command.profile.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"otherData": {}, "traceEvents": _EVENTS}, handle)
    assert build_profile.main([str(path), "--top=1"]) == 0
    out = capsys.readouterr().out
    assert "3 actions, 8.5 s of action time" in out
    assert "| Testing | 5.5 | 64.7% | 1 |" in out and "| Compiling | 3.0 | 35.3% | 2 |" in out
    assert "| 5.5 | Testing //a:a_test |" in out and "cc/a.cc |" not in out.split("longest")[1]


@pytest.mark.parametrize("content", [b"not json", bytes(range(128, 256))])
def test_a_file_that_is_no_profile_is_refused(tmp_path, content):
    path = tmp_path / "notes.json"
    path.write_bytes(content)
    with pytest.raises(SystemExit, match="not a readable Bazel JSON profile"):
        build_profile.main([str(path)])


def test_json_without_trace_events_has_no_action(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"otherData": {}}')
    with pytest.raises(SystemExit, match="no action in this profile"):
        build_profile.main([str(path)])


if __name__ == "__main__":
    testing.main(__file__)
