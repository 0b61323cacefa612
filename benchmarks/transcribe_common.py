"""transcribe_bench's pure parts (no model, no process): a row from an engine's result,
the table, the JSON document."""

from __future__ import annotations

from models.whisper import wer as wer_lib

# Every row has these (the issue's list), plus what an engine adds (load_s, segments, ...).
ROW_FIELDS = ("engine", "precision", "threads", "beams", "audio_s", "wall_s", "peak_rss_mb", "wer")


def make_row(engine: str, precision: str, threads: int, beams: int, audio: str, audio_s: float, wall_s: float,
             peak_rss_mb: float, text: str, reference: str, **extra) -> dict:
    """One measured run: `wall_s` is the transcription's time after loading the model
    (rtf = wall_s / audio_s), `text` the whole transcript, scored against `reference`
    with models/whisper/wer.py (errors and words kept too)."""
    errors, words = wer_lib.word_errors(text, reference)
    return {"engine": engine, "precision": precision, "threads": threads, "beams": beams, "audio": audio,
            "audio_s": audio_s, "wall_s": wall_s, "rtf": wall_s / audio_s, "peak_rss_mb": peak_rss_mb,
            "wer": errors / words, "word_errors": errors, "reference_words": words, **extra, "text": text}


def _cell(value, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def engine_label(row: dict) -> str:
    """The engine as the table names it: a pteforge row says which program, when it is not
    the current one (the label the benchmark was given), and a VAD row says so."""
    label = row["engine"]
    if row.get("program_label"):
        label += f" ({row['program_label']})"
    if row.get("vad"):
        label += ", VAD filter"
    return label


def table(rows: list[dict]) -> list[str]:
    """A Markdown table, one line per row, in the rows' order."""
    lines = ["| audio | engine | precision | beams | threads | wall s | RTF | load s | peak RSS MB | segments | WER |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['audio']} | {engine_label(r)} | {r['precision']} | {r['beams']} | {r['threads']} | "
                     f"{r['wall_s']:.2f} | {r['rtf']:.3f} | {_cell(r.get('load_s'), '.2f')} | "
                     f"{r['peak_rss_mb']:.0f} | {_cell(r.get('segments'))} | {r['wer']:.1%} |")
    return lines


def document(rows: list[dict], machine: dict, command: str, date: str, settings: dict, notes: list[str]) -> dict:
    """The JSON document: the rows (each with the machine's CPU flags), the settings the
    engines ran with and the notes on what was left out and why."""
    flags = machine.get("cpu_flags", [])
    return {"date": date, "command": command, "machine": machine, "cpu_flags": flags, "settings": settings,
            "notes": notes, "rows": [{**r, "cpu_flags": flags} for r in rows]}
