"""generate --chat on the tiny chat model (//models/llm:tiny_chat_xnnpack_pte): the
replies of a --messages file's turns are transformers' greedy replies to each whole
conversation (cc/llm/testdata/chat.golden.json, make_chat_golden.py), each on its own
line; each turn after the first prefills only its new tokens (--stats); a conversation
that outgrows max_seq_len is refused with the turns before it answered, or started again
with its last turns when asked; stdin gives one turn a line; bad messages files are
clear errors.
"""

import json
import subprocess

import pytest
from runfiles import runfiles

from pteforge.support import testing

_RUNFILES = runfiles.Create()
GENERATE = _RUNFILES.Rlocation("pteforge/cc/tools/generate")
PROGRAM = _RUNFILES.Rlocation("pteforge/models/llm/tiny_chat_xnnpack.pte")
NOT_A_CHAT_MODEL = _RUNFILES.Rlocation("pteforge/models/llm/tiny_qwen2_xnnpack.pte")
GOLDEN = json.loads(open(_RUNFILES.Rlocation("pteforge/cc/llm/testdata/chat.golden.json")).read())


def chat(tmp_path, messages, *flags: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    args = [GENERATE, f"--model={PROGRAM}", f"--max_new_tokens={GOLDEN['max_new_tokens']}", "--stats", *flags]
    if messages is not None:
        path = tmp_path / "messages.json"
        path.write_text(json.dumps(messages))
        args.append(f"--messages={path}")
    else:
        args.append("--chat")
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=300)


def messages_of(conversation) -> list[dict]:
    system = [] if conversation["system"] is None else [{"role": "system", "content": conversation["system"]}]
    return system + [{"role": "user", "content": turn["user"]} for turn in conversation["turns"]]


def turn_stats(result) -> list[dict]:
    return [json.loads(line) for line in result.stderr.splitlines() if line.startswith('{"turn"')]


@pytest.mark.parametrize("index", range(len(GOLDEN["conversations"])))
def test_replies_are_transformers_and_each_turn_prefills_only_its_new_tokens(tmp_path, index):
    conversation = GOLDEN["conversations"][index]
    result = chat(tmp_path, messages_of(conversation))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(turn["reply_text"] + "\n" for turn in conversation["turns"])
    stats = turn_stats(result)
    assert [s["turn"] for s in stats] == list(range(1, len(conversation["turns"]) + 1))
    cached = 0
    for turn, figures in zip(conversation["turns"], stats):
        assert figures["cached_before"] == cached  # the cache was kept from the turn before
        assert figures["generated_tokens"] == len(turn["reply_ids"])
        # Only the new tokens: the cache grew by them and by the reply's.
        assert 0 < figures["prefilled_tokens"] <= len(turn["cache_after"]) - cached
        cached = len(turn["cache_after"])


def test_stdin_gives_one_turn_a_line(tmp_path):
    conversation = next(c for c in GOLDEN["conversations"] if c["system"] is None)
    lines = "".join(turn["user"] + "\n\n" for turn in conversation["turns"])  # empty lines are skipped
    result = chat(tmp_path, None, stdin=lines)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(turn["reply_text"] + "\n" for turn in conversation["turns"])
    assert len(turn_stats(result)) == len(conversation["turns"])


def test_an_overflowing_conversation_is_refused_after_the_turns_that_fit(tmp_path):
    turns = GOLDEN["overflow"]["turns"]
    messages = [{"role": "user", "content": turn["user"]} for turn in turns]
    result = chat(tmp_path, messages)
    assert result.returncode == 1
    assert f"turn {len(turns)}: the conversation would outgrow the model's max_seq_len of 256 tokens" in result.stderr
    assert result.stdout.count("\n") >= 1 and len(turn_stats(result)) == len(turns) - 1


def test_a_line_that_is_not_utf8_is_refused_by_its_turn_and_byte(tmp_path):
    result = subprocess.run([GENERATE, f"--model={PROGRAM}", "--chat", "--greedy", "--max_new_tokens=2"],
                            input=b"Hi\nhello \xff world\n", capture_output=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert b"turn 2: the message is not valid UTF-8 at byte 6 (0xFF)" in result.stderr
    assert result.stdout.endswith(b"\n")  # the first turn was answered


def test_an_overflowing_conversation_starts_again_with_its_last_turns_when_asked(tmp_path):
    turns = GOLDEN["overflow"]["turns"]
    messages = [{"role": "user", "content": turn["user"]} for turn in turns]
    result = chat(tmp_path, messages, "--on_overflow=last_turns")
    assert result.returncode == 0, result.stderr
    stats = turn_stats(result)
    assert len(stats) == len(turns) and stats[-1]["dropped_turns"] > 0 and stats[-1]["cached_before"] == 0
    assert "started again without the first" in result.stderr


@pytest.mark.parametrize("messages,message", [
    ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
     "message 2: an assistant message; the replies are the model's own"),
    ([{"role": "user", "content": "Hi"}, {"role": "system", "content": "Be brief"}],
     "message 2: the system message must come first"),
    ([{"role": "user"}], "message 1"),
    ({"role": "user", "content": "Hi"}, "expected a list of messages"),
    ([], "no user message"),
])
def test_a_bad_messages_file_is_a_clear_error(tmp_path, messages, message):
    result = chat(tmp_path, messages)
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr


def test_a_model_without_a_chat_template_is_refused(tmp_path):
    result = subprocess.run([GENERATE, f"--model={NOT_A_CHAT_MODEL}", "--chat"], input="Hi\n", capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 1 and result.stdout == ""
    assert "chat template" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
