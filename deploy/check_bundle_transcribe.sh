#!/usr/bin/env bash
# The arm64 bundle's transcribe on a Whisper program it does not carry (the real tiny.en,
# int8: 65 MB and minutes of export, so not part of the bundle or of //...), under
# qemu-aarch64 with no sysroot: its JSON transcript must have the x86_64 build's segments
# (tokens, text, start, end) and words (text, start, end) exactly, and its scores
# (mean log-probability, no-speech and word probabilities) within 0.05: XNNPACK's int8
# kernels for arm64 and x86_64 round differently (seen: 0.02 on a word probability).
#
# The emulated CPU is qemu's "max" without SME: on qemu 7.2 (Debian 12) with SME on,
# XNNPACK's int8 matrix products give wrong numbers (a tiny int8 language model's
# greedy tokens change, tiny.en writes " . . ."), with every named CPU (cortex-a57,
# cortex-a72, neoverse-n1, a64fx) and with max,sme=off they are right
# (docs/android.md). Whether real SME hardware is affected is not known here.
#
#   check_bundle_transcribe.sh <bundle.tar> <transcribe> <whisper.pte> <speech.wav> [transcribe flags...]
#
# On a phone, the same by hand (docs/android.md): adb push the bundle and the program,
# then `sh bin/transcribe --model=... speech.wav` in the unpacked folder.
#
# Exit status: 0 when the transcripts match, 1 when they differ or a run fails, 2 when
# qemu-aarch64 is missing.
set -euo pipefail

ROOT=pteforge-arm64
fail() { echo "check_bundle_transcribe: FAIL: $*" >&2; exit 1; }

if [[ $# -lt 4 ]]; then
  echo "usage: $0 <bundle.tar> <transcribe> <whisper.pte> <speech.wav> [transcribe flags...]" >&2
  exit 2
fi
bundle="$1" host_transcribe="$2" whisper="$3" speech="$4"
shift 4
command -v qemu-aarch64 >/dev/null || { echo "check_bundle_transcribe: error: qemu-aarch64 not found (Debian's qemu-user)" >&2; exit 2; }
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bundle.XXXXXX")"
mkdir "$work/device"
tar -C "$work/device" -xf "$bundle"
unset QEMU_LD_PREFIX
export PTEFORGE_EMULATOR="qemu-aarch64 -cpu max,sme=off"
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
model="$(absolute "$whisper")" audio="$(absolute "$speech")"

echo "check_bundle_transcribe: x86_64: transcribe $* on $(basename "$speech")" >&2
"$host_transcribe" --quiet --model="$model" --format=json "$@" "$audio" > "$work/want.json"
echo "check_bundle_transcribe: arm64 bundle under qemu-aarch64 (minutes)" >&2
(cd "$work/device/$ROOT" && sh bin/transcribe --quiet --model="$model" --format=json "$@" "$audio") > "$work/got.json" \
  || fail "the bundle's transcribe exited with $?"
python3 - "$work/want.json" "$work/got.json" <<'PY' || fail "the bundle's transcript differs from x86_64's"
import json, sys
want, got = (json.load(open(path)) for path in sys.argv[1:])
def close(a, b): return abs(a - b) <= 0.05
problems = []
if len(want["segments"]) != len(got["segments"]):
    problems.append(f"{len(got['segments'])} segments, not {len(want['segments'])}")
for w, g in zip(want["segments"], got["segments"]):
    for key in ("tokens", "text", "start", "end", "seek"):
        if w[key] != g[key]:
            problems.append(f"segment {w['id']}: {key} {g[key]!r}, not {w[key]!r}")
    for key in ("avg_logprob", "no_speech_prob"):
        if not close(w[key], g[key]):
            problems.append(f"segment {w['id']}: {key} {g[key]}, not {w[key]}")
    for a, b in zip(w.get("words", []), g.get("words", [])):
        if (a["word"], a["start"], a["end"]) != (b["word"], b["start"], b["end"]) or not close(a["probability"], b["probability"]):
            problems.append(f"segment {w['id']}: word {b}, not {a}")
    if len(w.get("words", [])) != len(g.get("words", [])):
        problems.append(f"segment {w['id']}: {len(g.get('words', []))} words, not {len(w.get('words', []))}")
print("\n".join(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
PY
cat "$work/got.json"
echo "check_bundle_transcribe: the bundle's transcribe prints what the x86_64 build prints" >&2
