#!/usr/bin/env bash
# Makes the VAD test audio here, from nothing downloaded: speech from Debian's
# espeak-ng (several voices and languages), silence, noise and mixtures, as 16-bit mono
# WAV at 16 and 8 kHz through sox. Deterministic: sox -R seeds its noise, -D turns off
# dithering.
#
#   make_audio.sh <out_dir>    writes the files listed in AUDIO (tests/vad/BUILD.bazel)
set -euo pipefail
out="$1"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in espeak-ng sox; do
  command -v "$tool" >/dev/null || { echo "make_audio: $tool not found (./bazelw installs it: Debian's $tool)" >&2; exit 1; }
done

sox_() { sox -R -D -V1 "$@"; }

# speech <voice> <out.wav> <sentence>...: the sentences at espeak-ng's 22.05 kHz, each
# followed by a pause of 0.7 s.
speech() {
  local voice="$1" wav="$2"
  shift 2
  local parts=() i=0
  for sentence in "$@"; do
    espeak-ng -v "$voice" -s 165 -w "$work/part$i.wav" "$sentence"
    sox_ "$work/part$i.wav" "$work/padded$i.wav" pad 0 0.7
    parts+=("$work/padded$i.wav")
    i=$((i + 1))
  done
  sox_ "${parts[@]}" "$wav"
}

# to_rate <in> <rate> <out>: mono 16-bit at <rate>, with 1 s of silence before and 0.5 s after.
to_rate() { sox_ "$1" -r "$2" -c 1 -b 16 "$3" pad 1 0.5; }

# with_noise <in> <kind> <volume> <out>: <in> mixed with noise over its whole length.
with_noise() {
  local rate length
  rate="$(soxi -r "$1")"
  length="$(soxi -D "$1")"
  sox_ -n -r "$rate" -c 1 -b 16 "$work/noise.wav" synth "$length" "$2" vol "$3"
  sox_ -m "$1" "$work/noise.wav" -b 16 "$4"
}

speech en-us "$work/en_us.wav" \
  "The quick brown fox jumps over the lazy dog." \
  "Voice activity detection finds the speech in a long recording."
to_rate "$work/en_us.wav" 16000 "$out/en_us_16k.wav"

# Short, for the emulated Cortex-M55 (about 4 s: two utterances).
speech en-us "$work/short.wav" "Hello." "See you soon."
to_rate "$work/short.wav" 16000 "$out/short_16k.wav"

speech en-gb "$work/en_gb.wav" "Good morning. The train to London leaves at half past nine."
to_rate "$work/en_gb.wav" 8000 "$out/en_gb_8k.wav"

speech de "$work/de.wav" "Das Wetter ist heute schön." "Wir gehen am Nachmittag spazieren."
to_rate "$work/de.wav" 16000 "$work/de_16k.wav"
with_noise "$work/de_16k.wav" pinknoise 0.05 "$out/de_16k_noisy.wav"

speech fr-fr "$work/fr.wav" "Bonjour à tous, merci d'être venus ce soir."
to_rate "$work/fr.wav" 8000 "$work/fr_8k.wav"
with_noise "$work/fr_8k.wav" brownnoise 0.1 "$out/fr_8k_noisy.wav"

speech pt "$work/pt.wav" "O tempo está bom hoje." "Vamos à praia depois do almoço."
to_rate "$work/pt.wav" 16000 "$out/pt_16k.wav"

speech es "$work/es.wav" "El tren sale a las nueve y media de la mañana."
to_rate "$work/es.wav" 8000 "$out/es_8k.wav"

sox_ -n -r 16000 -c 1 -b 16 "$out/silence_16k.wav" trim 0 3
sox_ -n -r 8000 -c 1 -b 16 "$out/noise_8k.wav" synth 4 pinknoise vol 0.1

# Long speech with short pauses, for max_speech_duration_s: six sentences, 0.3 s apart.
long=()
for i in 0 1 2 3 4 5; do
  espeak-ng -v en-us -s 175 -w "$work/long$i.wav" "Sentence $i of a long recording."
  sox_ "$work/long$i.wav" "$work/long_padded$i.wav" pad 0 0.3
  long+=("$work/long_padded$i.wav")
done
sox_ "${long[@]}" "$work/long.wav"
to_rate "$work/long.wav" 16000 "$out/long_16k.wav"
