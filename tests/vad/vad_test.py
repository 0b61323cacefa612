"""The vad tool (//cc/tools:vad, x86_64) against silero's own utility: on every test
file, with each program, the segments get_speech_timestamps gives (run here, on the same
audio, with silero's model), sample for sample and as printed in seconds; with other
parameters too; the same from several streams at once and from a live stdin stream,
which prints segments before the stream ends; and clear errors, with no output, for
input it cannot take.
"""

import os
import select
import subprocess
import tempfile
import wave

import numpy as np
import pytest
from runfiles import runfiles

from pteforge.support import testing
from tests.vad import audio_files

_RUNFILES = runfiles.Create()
VAD = _RUNFILES.Rlocation("pteforge/cc/tools/vad")
PROGRAMS = {
    name: _RUNFILES.Rlocation(f"pteforge/models/silero_vad/{name}.pte")
    for name in ("silero_vad_xnnpack", "silero_vad", "silero_vad_16k", "silero_vad_16k_int8",
                 "silero_vad_16k_cmsis_nn", "silero_vad_16k_int8_cmsis_nn")
}
RATES = {"silero_vad_xnnpack": (16000, 8000), "silero_vad": (16000, 8000), "silero_vad_16k": (16000,),
         "silero_vad_16k_int8": (16000,), "silero_vad_16k_cmsis_nn": (16000,),
         "silero_vad_16k_int8_cmsis_nn": (16000,)}


def vad(*args: str, stdin: bytes | None = None, expect: int = 0) -> tuple[str, str]:
    result = subprocess.run([VAD, *args], input=stdin, capture_output=True, timeout=600)
    stdout, stderr = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == expect, f"vad {' '.join(args)} exited {result.returncode}:\n{stderr}"
    return stdout, stderr


def _files_at(rates):
    """The test files at these rates."""
    return [name for name in audio_files.names() if audio_files.read_wav(audio_files.path(name))[1] in rates]


# (The backend="cortex_m" program here on pteforge's reference kernels; on the
# Cortex-M55's CMSIS-NN ones: //tests/vad:cortex_m55_test.)
@pytest.mark.parametrize("program", ["silero_vad_xnnpack", "silero_vad", "silero_vad_16k_cmsis_nn"])
def test_every_file_gives_silero_segments(program):
    compared = 0
    for name in _files_at(RATES[program]):
        path = audio_files.path(name)
        audio, rate = audio_files.read_wav(path)
        samples, _ = vad(f"--model={PROGRAMS[program]}", "--units=samples", path)
        seconds, _ = vad(f"--model={PROGRAMS[program]}", path)
        assert samples.splitlines() == audio_files.as_lines(audio_files.silero_segments(audio, rate)), name
        assert seconds.splitlines() == audio_files.as_lines(
            audio_files.silero_segments(audio, rate, return_seconds=True)), name
        compared += len(samples.splitlines())
    assert compared >= 7 * len(RATES[program])  # speech was found, not just silence agreed on


PARAMETERS = [
    {"threshold": 0.3, "min_silence_duration_ms": 300, "speech_pad_ms": 100},
    {"threshold": 0.7, "neg_threshold": 0.6, "min_speech_duration_ms": 50},
    {"max_speech_duration_s": 2.0, "min_silence_duration_ms": 50},
    {"max_speech_duration_s": 1.5, "use_max_poss_sil_at_max_speech": False, "min_silence_at_max_speech": 50},
    {"speech_pad_ms": 0, "min_speech_duration_ms": 0, "min_silence_duration_ms": 0},
]


@pytest.mark.parametrize("parameters", PARAMETERS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_parameters_change_segments_as_they_change_silero(parameters):
    flags = [f"--{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in parameters.items()]
    for name in ["long_16k.wav", "en_gb_8k.wav", "de_16k_noisy.wav"]:
        path = audio_files.path(name)
        audio, rate = audio_files.read_wav(path)
        ours, _ = vad("--units=samples", *flags, path)
        assert ours.splitlines() == audio_files.as_lines(audio_files.silero_segments(audio, rate, **parameters)), name
        ours, _ = vad("--time_resolution=3", *flags, path)
        assert ours.splitlines() == audio_files.as_lines(
            audio_files.silero_segments(audio, rate, return_seconds=True, time_resolution=3, **parameters)), name


def test_probabilities_are_the_models():
    path = audio_files.path("en_us_16k.wav")
    audio, rate = audio_files.read_wav(path)
    output, _ = vad(f"--model={PROGRAMS['silero_vad']}", "--probs", path)
    probabilities = [float(line.split()[2]) for line in output.splitlines() if line.startswith("prob ")]
    expected = audio_files.silero_probabilities(audio, rate)
    assert len(probabilities) == len(expected) == -(-len(audio) // 512)
    assert max(abs(a - b) for a, b in zip(probabilities, expected)) < 2e-4


@pytest.mark.parametrize("program", ["silero_vad_16k_int8", "silero_vad_16k_int8_cmsis_nn"])
def test_int8_program_finds_the_float_segments(program):
    for name in _files_at((16000,)):
        path = audio_files.path(name)
        float32, _ = vad(f"--model={PROGRAMS['silero_vad_16k']}", "--units=samples", path)
        int8, _ = vad(f"--model={PROGRAMS[program]}", "--units=samples", path)
        assert int8 == float32, name


def test_several_streams_on_one_program_give_each_file_its_own_segments():
    names = ["en_us_16k.wav", "en_gb_8k.wav", "pt_16k.wav", "fr_8k_noisy.wav"]
    paths = [audio_files.path(name) for name in names]
    together, _ = vad("--units=samples", *paths)
    for path in paths:
        alone, _ = vad("--units=samples", path)
        mine = [line[len(path) + 1:] for line in together.splitlines() if line.startswith(path + " ")]
        assert mine == alone.splitlines() and mine, path


def _pcm(path: str) -> bytes:
    with wave.open(path) as w:
        return w.readframes(w.getnframes())


def test_stdin_stream_gives_the_same_segments_as_the_file():
    for name in ["en_us_16k.wav", "es_8k.wav"]:
        path = audio_files.path(name)
        rate = audio_files.read_wav(path)[1]
        streamed, _ = vad(f"--stdin_rate={rate}", "--units=samples", stdin=_pcm(path))
        whole, _ = vad("--units=samples", path)
        assert streamed == whole and streamed, name


def test_stdin_stream_prints_a_segment_before_the_stream_ends():
    path = audio_files.path("long_16k.wav")
    pcm = _pcm(path)
    first_end = int(vad("--units=samples", path)[0].split()[1])
    process = subprocess.Popen([VAD, "--stdin_rate=16000", "--units=samples"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # A second past the first segment's end: enough for it to be decided.
    process.stdin.write(pcm[:2 * (first_end + 16000)])
    process.stdin.flush()
    ready, _, _ = select.select([process.stdout], [], [], 60)
    assert ready, "no segment within 60 s although its end was a second behind"
    line = process.stdout.readline().decode()
    assert process.poll() is None, "vad ended instead of waiting for the rest of the stream"
    assert int(line.split()[1]) == first_end
    process.stdin.write(pcm[2 * (first_end + 16000):])
    process.stdin.close()
    assert process.wait(timeout=120) == 0


def _write_wav(path, rate=16000, channels=1, width=2, frames=16000):
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(np.zeros(frames * channels * width, dtype=np.uint8).tobytes())


def test_bad_input_is_a_clear_error_and_no_output():
    accepted = "accepted: 16-bit PCM mono WAV at 16000 or 8000 Hz"
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        cases = {}
        for label, kwargs in {"stereo": dict(channels=2), "cd": dict(rate=44100), "wide": dict(width=3)}.items():
            cases[label] = os.path.join(scratch, f"{label}.wav")
            _write_wav(cases[label], **kwargs)
        good = audio_files.path("en_us_16k.wav")
        with open(good, "rb") as f:
            data = f.read()
        cases["truncated"] = os.path.join(scratch, "truncated.wav")
        with open(cases["truncated"], "wb") as f:
            f.write(data[:len(data) // 2])
        cases["text"] = os.path.join(scratch, "text.wav")
        with open(cases["text"], "w") as f:
            f.write("not audio at all\n")
        expected = {
            "stereo": f"2 channels; {accepted}",
            "cd": f"44100 Hz; {accepted}",
            "wide": f"24-bit samples; {accepted}",
            "truncated": "is truncated: its header says",
            "text": "is not a WAV file",
        }
        for label, message in expected.items():
            # A bad file among good ones: nothing is printed for the good ones either.
            stdout, stderr = vad(good, cases[label], expect=1)
            assert stdout == "" and message in stderr and stderr.startswith("vad: error: "), (label, stderr)
        stdout, stderr = vad(f"--model={PROGRAMS['silero_vad_16k']}", audio_files.path("es_8k.wav"), expect=1)
        assert stdout == "" and "has models for 16000 Hz only, not 8000 Hz" in stderr
        stdout, stderr = vad("--stdin_rate=16000", stdin=b"\x00" * 1025, expect=1)
        assert "stdin ended in the middle of a 16-bit sample" in stderr
        stdout, stderr = vad(os.path.join(scratch, "missing.wav"), expect=1)
        assert stdout == "" and "cannot open" in stderr
        stdout, stderr = vad(f"--model={good}", good, expect=1)
        assert stdout == "" and "is not a valid ExecuTorch program" in stderr
    for flags, message in [(["--units=minutes"], "--units=minutes: expected seconds or samples"),
                           (["--threshold=2"], "--threshold=2: expected a probability in [0, 1]"),
                           (["--speech_pad_ms=-1"], "--speech_pad_ms=-1: expected a finite duration >= 0"),
                           (["--stdin_rate=44100"], "--stdin_rate=44100: Silero VAD takes 16000 or 8000 Hz"),
                           ([], "no input")]:
        inputs = [] if not flags or flags[0].startswith("--stdin_rate") else [good]
        stdout, stderr = vad(*flags, *inputs, expect=2)
        assert stdout == "" and message in stderr, (flags, stderr)


if __name__ == "__main__":
    testing.main(__file__)
