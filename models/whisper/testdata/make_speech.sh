#!/usr/bin/env bash
# Makes English speech for the Whisper tests here, from nothing downloaded: one WAV per
# line of a sentences file ("voice|sentence"), spoken by Debian's espeak-ng at 165 words a
# minute and made 16 kHz mono 16-bit by sox, with 0.5 s of silence before and after.
# Deterministic (sox -D: no dithering).
#
#   make_speech.sh <sentences.txt> <out_dir>    writes <out_dir>/00.wav, 01.wav, ...
set -euo pipefail
sentences="$1"
out="$2"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in espeak-ng sox; do
  command -v "$tool" >/dev/null || { echo "make_speech: $tool not found (./bazelw installs it: Debian's $tool)" >&2; exit 1; }
done

i=0
while IFS='|' read -r voice sentence; do
  [[ -z "$voice" ]] && continue
  name="$(printf '%02d' "$i")"
  espeak-ng -v "$voice" -s 165 -w "$work/$name.wav" "$sentence"
  sox -R -D -V1 "$work/$name.wav" -r 16000 -c 1 -b 16 "$out/$name.wav" pad 0.5 0.5
  i=$((i + 1))
done <"$sentences"
