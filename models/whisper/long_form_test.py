"""transcribe's long-form decoding (cc/whisper/long_form.h) against faster-whisper itself,
on one tiny random Whisper of 30-s windows exported by pteforge (//models/whisper:tiny_long_pte)
and converted by CTranslate2 (:tiny_long_ct2), on the 103.5 s recording: the same segments
(tokens with their timestamps, start and end, the window each came from), mean
log-probabilities and no-speech probabilities, greedy and with 5 beams. Random weights
make the words meaningless, but the tokens still go through every rule that shapes them:
timestamps in pairs, segments split by them, each window starting at the last complete
segment's end, the previous text as the prompt, the suppressed tokens, the log-softmax
after them (the scores), the no-speech check. One temperature: above 0 faster-whisper
samples with CTranslate2's random stream, which nothing reproduces."""

import json
import os
import subprocess
import wave

import pytest
from runfiles import runfiles

from models.whisper import compare_words, faster_whisper_reference
from models.whisper.testdata import speech_files
from pteforge.support import testing

_RUNFILES = runfiles.Create()
TRANSCRIBE = _RUNFILES.Rlocation("pteforge/cc/tools/transcribe")
VAD = _RUNFILES.Rlocation("pteforge/cc/tools/vad")
VAD_PROGRAM = _RUNFILES.Rlocation("pteforge/models/silero_vad/silero_vad_xnnpack.pte")
PROGRAM = _RUNFILES.Rlocation("pteforge/models/whisper/tiny_long.pte")
CT2_DIR = os.path.dirname(_RUNFILES.Rlocation("pteforge/models/whisper/tiny_long_ct2/model.bin"))


def _transcribe(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TRANSCRIBE, "--quiet", "--threads=1", f"--model={PROGRAM}", *args], capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture(scope="module", params=[1, 5], ids=["greedy", "5_beams"])
def both(request):
    """(faster-whisper's result, pteforge's JSON) for one beam size, faster-whisper's
    other defaults (thresholds, previous text, timestamps), temperature 0 alone."""
    beams, audio = request.param, speech_files.long_recording()
    reference = faster_whisper_reference.transcribe(audio, ct2_dir=CT2_DIR, threads=1, beam_size=beams,
                                                    language="en", temperature=[0.0])
    ours = _transcribe(f"--beams={beams}", "--temperature=0", "--format=json", audio)
    assert ours.returncode == 0, ours.stderr
    assert ours.stderr == ""
    return reference, json.loads(ours.stdout)


def test_segments_equal_faster_whispers(both):
    reference, ours = both
    theirs = reference["segments"]
    assert len({segment["seek"] for segment in theirs}) >= 3  # several windows, seeking by timestamps
    assert [s["tokens"] for s in ours["segments"]] == [s["tokens"] for s in theirs]
    for mine, their in zip(ours["segments"], theirs):
        assert mine["seek"] == their["seek"]
        assert mine["start"] == pytest.approx(their["start"], abs=0.005)
        assert mine["end"] == pytest.approx(their["end"], abs=0.005)
        assert mine["text"] == their["text"]
        assert mine["temperature"] == their["temperature"] == 0
        # Scores from two engines' float32 arithmetic (XNNPACK's against CTranslate2's).
        assert mine["avg_logprob"] == pytest.approx(their["avg_logprob"], abs=1e-4)
        assert mine["no_speech_prob"] == pytest.approx(their["no_speech_prob"], abs=1e-4)
        assert mine["compression_ratio"] == pytest.approx(their["compression_ratio"], rel=1e-12)
    assert ours["text"] == reference["text"]


@pytest.fixture(scope="module")
def with_words():
    """(faster-whisper's, pteforge's) greedy transcripts with word timestamps."""
    audio = speech_files.long_recording()
    reference = faster_whisper_reference.transcribe(audio, ct2_dir=CT2_DIR, threads=1, beam_size=1, language="en",
                                                    temperature=[0.0], word_timestamps=True)
    ours = _transcribe("--beams=1", "--temperature=0", "--format=json", "--word_timestamps", audio)
    assert ours.returncode == 0, ours.stderr
    return reference, json.loads(ours.stdout)


def test_word_timestamps_equal_faster_whispers(with_words):
    """Each segment's words (text, start, end, probability) and the segments they move:
    the windows start after the last word (the seeks differ from those without words)."""
    reference, ours = with_words
    theirs = reference["segments"]
    assert [s["tokens"] for s in ours["segments"]] == [s["tokens"] for s in theirs]
    assert [s["seek"] for s in ours["segments"]] == [s["seek"] for s in theirs]
    for mine, their in zip(ours["segments"], theirs):
        assert [w["word"] for w in mine["words"]] == [w["word"] for w in their["words"]]
        assert mine["start"] == pytest.approx(their["start"], abs=0.005)
        assert mine["end"] == pytest.approx(their["end"], abs=0.005)
        for word, expected in zip(mine["words"], their["words"]):
            assert word["probability"] == pytest.approx(expected["probability"], abs=1e-4)
    summary = compare_words.compare(reference, ours, tolerance=0.0)
    assert summary["paired_words"] == summary["reference_words"] >= 10  # random text: few spaces, few words
    assert summary["exact_times"] == summary["paired_words"], summary


def test_subtitles_carry_the_segments(both):
    _, ours = both
    audio = speech_files.long_recording()
    srt = _transcribe("--beams=1", "--temperature=0", "--format=srt", audio)
    vtt = _transcribe("--beams=1", "--temperature=0", "--format=vtt", audio)
    assert srt.returncode == vtt.returncode == 0, srt.stderr + vtt.stderr
    cues = srt.stdout.strip().split("\n\n")
    assert vtt.stdout.startswith("WEBVTT\n\n") and vtt.stdout.count(" --> ") == len(cues)
    assert cues[0].split("\n")[0] == "1" and " --> " in cues[0].split("\n")[1]


def test_the_vad_filter_keeps_the_vad_tools_speech_and_gives_original_times():
    """--vad: Whisper hears the speech chunks the vad tool finds with faster-whisper's
    VadOptions (2 s of silence ends a chunk, 400 ms of padding), and the segments come
    back in the original file's time."""
    audio = speech_files.long_recording(speech_files.LONG_HALF_SILENCE)
    chunks = subprocess.run([VAD, f"--model={VAD_PROGRAM}", "--min_silence_duration_ms=2000", "--speech_pad_ms=400",
                             "--min_speech_duration_ms=0", "--units=samples", audio],
                            capture_output=True, text=True, timeout=600, check=True).stdout.split("\n")
    spans = [tuple(int(value) for value in line.split()) for line in chunks if line.strip()]
    kept = sum(end - start for start, end in spans) / 16000
    filtered = _transcribe("--beams=1", "--temperature=0", "--format=json", "--stats", f"--vad={VAD_PROGRAM}", audio)
    assert filtered.returncode == 0, filtered.stderr
    stats = json.loads(filtered.stderr)
    assert stats["speech_seconds"] == pytest.approx(kept, abs=1e-3)
    assert 0.5 * stats["seconds"] < kept < 0.75 * stats["seconds"]  # about half of it is silence
    segments = json.loads(filtered.stdout)["segments"]
    assert segments
    starts = [segment["start"] for segment in segments]
    assert starts == sorted(starts)
    # Times in the original audio: the speech after the first long silence starts past it.
    assert segments[-1]["end"] > kept
    assert all(spans[0][0] / 16000 - 0.01 <= segment["start"] <= stats["seconds"] + 30 for segment in segments)


def test_silence_and_empty_audio_give_no_crash(tmp_path):
    for name, seconds in [("silence.wav", 3.0), ("empty.wav", 0.0)]:
        path = tmp_path / name
        with wave.open(str(path), "wb") as f:
            f.setnchannels(1), f.setsampwidth(2), f.setframerate(16000)
            f.writeframes(b"\0\0" * int(seconds * 16000))
        result = _transcribe("--format=json", str(path))
        assert result.returncode == 0, result.stderr
        segments = json.loads(result.stdout)["segments"]
        if seconds == 0:
            assert segments == []


@pytest.mark.parametrize("flags, message", [
    (["--format=docx"], "format 'docx': expected text, srt, vtt or json"),
    (["--temperature=0,hot"], "--temperature=0,hot: expected numbers"),
    (["--no_speech_threshold=high"], "--no_speech_threshold=high: expected a number"),
    (["--print_ids"], "--print_ids needs --decoding=windows"),
    (["--decoding=streaming"], "--decoding=streaming: expected long_form or windows"),
    (["--vad_threshold=2"], "--vad_threshold=2: expected a number from 0 to 1"),
    (["--decoding=windows", "--vad=x.pte"], "--vad needs --decoding=long_form"),
])
def test_bad_flags_are_refused_by_name(flags, message):
    result = _transcribe(*flags, speech_files.long_recording())
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


if __name__ == "__main__":
    testing.main(__file__)
