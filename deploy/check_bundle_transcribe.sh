#!/usr/bin/env bash
# The arm64 bundle's transcribe on a Whisper program it does not carry (the real tiny.en,
# int8: 65 MB and minutes of export, so not part of the bundle or of //...), under
# qemu-aarch64 with no sysroot: its JSON transcript (segments, tokens, times, words) must
# equal the x86_64 build's, flags as given.
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
export PTEFORGE_EMULATOR="qemu-aarch64"
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
model="$(absolute "$whisper")" audio="$(absolute "$speech")"

echo "check_bundle_transcribe: x86_64: transcribe $* on $(basename "$speech")" >&2
"$host_transcribe" --quiet --model="$model" --format=json "$@" "$audio" > "$work/want.json"
echo "check_bundle_transcribe: arm64 bundle under qemu-aarch64 (minutes)" >&2
(cd "$work/device/$ROOT" && sh bin/transcribe --quiet --model="$model" --format=json "$@" "$audio") > "$work/got.json" \
  || fail "the bundle's transcribe exited with $?"
diff -u "$work/want.json" "$work/got.json" >&2 || fail "the bundle's transcript differs from x86_64's"
cat "$work/got.json"
echo "check_bundle_transcribe: the bundle's transcribe prints what the x86_64 build prints" >&2
