#!/usr/bin/env bash
# Makes the long-form Whisper recordings here, from nothing downloaded (as make_speech.sh):
# the sentences of a script ("voice|pause|sentence" lines, # comments) spoken by Debian's
# espeak-ng at 165 words a minute, each trimmed of espeak's own leading and trailing
# silence, made 16 kHz mono 16-bit by sox and followed by `pause` seconds of digital
# silence; 0.5 s of silence first.
#
#   long.wav               the script as written (its pauses: 0.3 s to 3 s)
#   long_half_silence.wav  the same clips and pauses, plus one long silence after every
#                          fourth sentence (not after the last), of equal lengths, such
#                          that silence is half of the file: a VAD filter can drop them
#                          (faster-whisper's VadOptions keep silences under 2 s)
#
# Deterministic (sox -R -D: no dithering, fixed random numbers).
#
#   make_long_speech.sh <long_script.txt> <out_dir>
set -euo pipefail
script="$1"
out="$2"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in espeak-ng sox; do
  command -v "$tool" >/dev/null || { echo "make_long_speech: $tool not found (./bazelw installs it: Debian's $tool)" >&2; exit 1; }
done

readonly LEAD=0.5 FORMAT=(-r 16000 -c 1 -b 16)
pauses=()
i=0
while IFS='|' read -r voice pause sentence; do
  [[ -z "$voice" || "$voice" == \#* ]] && continue
  name="$(printf '%02d' "$i")"
  espeak-ng -v "$voice" -s 165 -w "$work/$name.raw.wav" "$sentence"
  # silence ... reverse silence ... reverse: trims the start, then the end (-60 dB).
  sox -R -D -V1 "$work/$name.raw.wav" "${FORMAT[@]}" "$work/$name.wav" \
    silence 1 0.005 0.1% reverse silence 1 0.005 0.1% reverse
  pauses+=("$pause")
  i=$((i + 1))
done <"$script"
count=$i
(( count > 0 )) || { echo "make_long_speech: no sentences in $script" >&2; exit 1; }

speech=0
for ((i = 0; i < count; i++)); do
  speech="$(awk -v a="$speech" -v b="$(sox --i -D "$work/$(printf '%02d' "$i").wav")" 'BEGIN { printf "%.6f", a + b }')"
done
silence="$(printf '%s\n' "$LEAD" "${pauses[@]}" | awk '{ s += $1 } END { printf "%.6f", s }')"
long_gaps=$(( (count - 1) / 4 ))  # after sentences 4, 8, ... but not the last
extra="$(awk -v s="$speech" -v q="$silence" -v n="$long_gaps" 'BEGIN { e = (s - q) / n; printf "%.3f", (e > 0 ? e : 0) }')"

# One clip per sentence with its pause after it (and the lead before the first).
assemble() {  # assemble <out.wav> <extra seconds after every fourth sentence>
  local target="$1" more="$2" parts=() i after before
  for ((i = 0; i < count; i++)); do
    after="${pauses[$i]}"
    if (( (i + 1) % 4 == 0 && i + 1 < count )); then
      after="$(awk -v a="$after" -v b="$more" 'BEGIN { printf "%.3f", a + b }')"
    fi
    before=0
    (( i == 0 )) && before="$LEAD"
    sox -V1 "$work/$(printf '%02d' "$i").wav" "$work/part$i.wav" pad "$before" "$after"
    parts+=("$work/part$i.wav")
  done
  sox -V1 "${parts[@]}" "$target"
}
assemble "$out/long.wav" 0
assemble "$out/long_half_silence.wav" "$extra"
