"""faster_whisper_reference runs faster-whisper on the long-form recording with a tiny
random model of Whisper's own 30 s windows, and its JSON holds what faster-whisper's
segments must satisfy: several windows, each segment inside its window and after the one
before, times that are its timestamp tokens', text that its tokens decode to, the
options asked for; quiet on success, a clear error on bad input."""

import json
import subprocess
import wave

import pytest
from runfiles import runfiles

from models.whisper import faster_whisper_reference
from models.whisper.testdata import speech_files
from models.whisper.tiny_ct2_model import write_tiny_ct2_model
from pteforge.support import testing

# tiny.en's tokenizer (the tiny model's): <|endoftext|> and the first timestamp, <|0.00|>.
EOT, TIMESTAMP_BEGIN = 50256, 50363
WINDOW_S = 30.0
FLAGS = ["--beam_size=1", "--temperature=0", "--compression_ratio_threshold=none", "--log_prob_threshold=none",
         "--no_speech_threshold=none", "--threads=1"]


@pytest.fixture(scope="module")
def ct2_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("ct2") / "tiny")
    write_tiny_ct2_model(folder, full_window=True)
    return folder


def _reference(*arguments: str) -> subprocess.CompletedProcess:
    tool = runfiles.Create().Rlocation("pteforge/models/whisper/faster_whisper_reference")
    return subprocess.run([tool, *arguments], capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def greedy(ct2_dir, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("out") / "greedy.json")
    result = _reference(f"--ct2_dir={ct2_dir}", *FLAGS, f"--out={out}", speech_files.long_recording())
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "quiet on success"
    with open(out, encoding="utf-8") as file:
        text = file.read()
    return result.stdout, json.loads(text, parse_constant=lambda name: pytest.fail(f"not strict JSON: {name}"))


def _duration(path: str) -> float:
    with wave.open(path) as file:
        return file.getnframes() / file.getframerate()


def test_the_options_and_versions_are_recorded(ct2_dir, greedy):
    import ctranslate2
    import faster_whisper

    stdout, result = greedy
    assert stdout.startswith(f"{len(result['segments'])} segments, ") and stdout.count("\n") == 1
    options = result["options"]
    assert (options["beam_size"], options["temperatures"], options["condition_on_previous_text"]) == (1, [0.0], True)
    assert (options["compression_ratio_threshold"], options["log_prob_threshold"],
            options["no_speech_threshold"]) == (None, None, None)
    assert (options["without_timestamps"], options["word_timestamps"], result["vad_options"]) == (False, False, None)
    assert options["best_of"] == 5, "unset options are faster-whisper's defaults"
    assert result["versions"] == {"faster_whisper": faster_whisper.__version__,
                                  "ctranslate2": ctranslate2.__version__}
    assert (result["compute_type"], result["threads"]) == ("float32", 1)
    assert result["duration"] == pytest.approx(_duration(speech_files.long_recording()), abs=1e-3)
    assert result["wall_s"] > 0 and result["load_s"] > 0


def test_segments_lie_in_their_windows_in_order(greedy):
    _, result = greedy
    segments = result["segments"]
    assert [s["id"] for s in segments] == list(range(1, len(segments) + 1))
    seeks = [s["seek"] for s in segments]
    assert seeks == sorted(seeks)
    # The tiny model's tokens come out as timestamped segments in every window of the
    # 103.5 s recording: without several windows, seeking would go unchecked.
    assert len(set(seeks)) >= 3, f"windows starting at frames {sorted(set(seeks))}"
    previous_end = 0.0
    for segment in segments:
        window_start = segment["seek"] * 0.01
        assert window_start < result["duration"], segment
        assert window_start <= segment["start"] <= segment["end"] <= window_start + WINDOW_S + 1e-6, segment
        assert segment["start"] >= previous_end - 1e-6, segment
        previous_end = segment["end"]


def test_times_and_text_come_from_the_tokens(ct2_dir, greedy):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(f"{ct2_dir}/tokenizer.json")
    _, result = greedy
    timestamped = 0
    for segment in result["segments"]:
        tokens = segment["tokens"]
        text_tokens = [t for t in tokens if t < EOT]
        assert segment["text"] == tokenizer.decode(text_tokens), segment
        if tokens[0] >= TIMESTAMP_BEGIN and tokens[-1] >= TIMESTAMP_BEGIN:
            timestamped += 1
            window_start = segment["seek"] * 0.01
            assert segment["start"] == pytest.approx(window_start + (tokens[0] - TIMESTAMP_BEGIN) * 0.02)
            assert segment["end"] == pytest.approx(window_start + (tokens[-1] - TIMESTAMP_BEGIN) * 0.02)
        assert isinstance(segment["avg_logprob"], float) and segment["temperature"] == 0.0
        assert 0.0 <= segment["no_speech_prob"] <= 1.0 and segment["compression_ratio"] > 0
    assert timestamped >= len(result["segments"]) / 2
    assert result["text"] == "".join(s["text"] for s in result["segments"])


def test_beams_and_word_timestamps(ct2_dir):
    result = faster_whisper_reference.transcribe(
        speech_files.clip(0), ct2_dir, threads=1, beam_size=5, temperature=[0.0], word_timestamps=True)
    assert result["options"]["beam_size"] == 5 and result["options"]["word_timestamps"] is True
    assert result["segments"] and all("words" in segment for segment in result["segments"])
    assert json.loads(faster_whisper_reference.to_json(result))["segments"] == json.loads(
        json.dumps(result["segments"]))


def test_flag_values():
    assert faster_whisper_reference.parse_threshold("None") is None
    assert faster_whisper_reference.parse_threshold("-1.5") == -1.5
    assert faster_whisper_reference.parse_temperatures("0.0, 0.2,0.4") == [0.0, 0.2, 0.4]
    with pytest.raises(ValueError):
        faster_whisper_reference.parse_temperatures(",")


def test_bad_input_is_an_error(ct2_dir, tmp_path):
    missing = _reference(f"--ct2_dir={ct2_dir}", str(tmp_path / "missing.wav"))
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("faster_whisper_reference: error: FileNotFoundError: no such audio file")
    not_a_model = _reference(f"--ct2_dir={tmp_path}", speech_files.clip(0))
    assert not_a_model.returncode == 1 and "model.bin" in not_a_model.stderr
    bad_flag = _reference("--temperature=hot", speech_files.clip(0))
    assert bad_flag.returncode == 1 and "could not convert" in bad_flag.stderr


def test_the_long_recordings():
    script = speech_files.long_script()
    assert len(script) >= 20
    assert _duration(speech_files.long_recording()) >= 60
    # Half silence: the same speech with silence added to half of the duration.
    half = _duration(speech_files.long_recording(speech_files.LONG_HALF_SILENCE))
    assert half > _duration(speech_files.long_recording()) + 30
    assert speech_files.long_text().startswith(script[0] + " " + script[1])


if __name__ == "__main__":
    testing.main(__file__)
