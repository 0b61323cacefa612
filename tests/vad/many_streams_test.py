"""Many streams on one program: the vad tool serves 64 streams (a test file 64 times,
a chunk of each in turn) on one mapped program, each stream a Session with its own
state. Every stream finds the file's segments, and the peak RSS grows by much less than
the program per stream: the weights are in memory once (with a copy per stream, 64
streams would take 64 x 1.25 MB of touched weights more). On XNNPACK that takes its
weight cache, which packs each weight once for every Session (SessionOptions::
share_packed_weights; without it each stream packed its own copy: 2.3 MB per stream).
"""

import pytest
from runfiles import runfiles

from benchmarks import engine_process
from pteforge.support import testing
from tests.vad import audio_files

_RUNFILES = runfiles.Create()
VAD = _RUNFILES.Rlocation("pteforge/cc/tools/vad")
PROGRAMS = ("silero_vad.pte", "silero_vad_xnnpack.pte")
STREAMS = 64
# What an extra stream may add: its state, work arena and the Session's structures
# (measured: about 0.13 MB portable, 0.24 MB XNNPACK), far below the 1.25 MB of 16 kHz weights it reads.
PER_STREAM_MB = 0.4


def _run(program: str, streams: int) -> tuple[list[str], float]:
    path = audio_files.path("short_16k.wav")
    model = _RUNFILES.Rlocation(f"pteforge/models/silero_vad/{program}")
    stdout, stderr = engine_process.run([VAD, f"--model={model}", "--units=samples"] + [path] * streams)
    rss = engine_process.json_lines(stderr)[-1]["peak_rss_mb"]
    return stdout.splitlines(), rss


@pytest.mark.parametrize("program", PROGRAMS)
def test_64_streams_find_the_segments_and_share_the_weights(program):
    one, one_mb = _run(program, 1)
    many, many_mb = _run(program, STREAMS)
    path = audio_files.path("short_16k.wav")
    assert one and sorted(many) == sorted(f"{path} {line}" for line in one for _ in range(STREAMS))
    per_stream = (many_mb - one_mb) / (STREAMS - 1)
    print(f"{program} peak RSS: 1 stream {one_mb:.1f} MB, {STREAMS} streams {many_mb:.1f} MB ({per_stream * 1024:.0f} KB per "
          "extra stream)")
    assert per_stream < PER_STREAM_MB


if __name__ == "__main__":
    testing.main(__file__)
