#!/usr/bin/env bash
# Runs the arm64 bundle's checks somewhere and compares with the x86_64 programs here:
# translate on a few sentences (the bundle's default model, Bergamot en->pt), a
# stateful pte_run call sequence, vad's speech segments in a WAV file (its default
# model, Silero VAD), generate's text from a tiny language model, greedy and sampled
# with a seed, translate's text and ids from a tiny Hugging Face encoder-decoder
# (pteforge.seq2seq) with 4 beams, transcribe's from a tiny Whisper on the same speech,
# and generate --messages's replies and per-turn counts (tokens cached, prefilled,
# generated) in a three-turn chat on a tiny chat model must be what the x86_64 builds
# print.
#
#   check_bundle.sh qemu <bundle.tar> <translate> <pte_run> <stateful.pte> <vad> <speech.wav> <generate> <llm.pte> <seq2seq.pte> <transcribe> <whisper.pte> <chat.pte> <chat.json>
#       unpacks into an empty folder and runs under qemu-aarch64 with no sysroot (no -L,
#       no QEMU_LD_PREFIX); also fails if the loader opens any library outside the bundle
#   check_bundle.sh adb <bundle.tar> <translate> <pte_run> <stateful.pte> <vad> <speech.wav> <generate> <llm.pte> <seq2seq.pte> <transcribe> <whisper.pte> <chat.pte> <chat.json> [--serial=SERIAL]
#       pushes to /data/local/tmp on a device (Debian's adb) and runs there
#
# Exit status: 0 when every output matches, 1 when one does not or a run fails, 2 when
# the place to run is missing (no adb, no device).
set -euo pipefail

SENTENCES=("The weather is nice today." "I like to read books.")
CALLS=("--call=set_cache(full(2)[3,8])" "--call=get_cache(zeros[4,8])" "--call=set_cache(full(-1)[2,8])" "--call=get_cache(full(1)[4,8])")
ROOT=pteforge-arm64

fail() { echo "check_bundle: FAIL: $*" >&2; exit 1; }
missing() { echo "check_bundle: error: $*" >&2; exit 2; }

if [[ $# -lt 14 ]]; then
  echo "usage: $0 qemu|adb <bundle.tar> <translate> <pte_run> <stateful.pte> <vad> <speech.wav> <generate> <llm.pte> <seq2seq.pte> <transcribe> <whisper.pte> <chat.pte> <chat.json> [serial]" >&2
  exit 2
fi
where="$1" bundle="$2" host_translate="$3" host_pte_run="$4" stateful="$5" host_vad="$6" speech="$7"
host_generate="$8" llm="$9" seq2seq="${10}" host_transcribe="${11}" whisper="${12}" chat_llm="${13}"
messages="${14}" serial="${15:-}"
serial="${serial#--serial=}"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bundle.XXXXXX")"

case "$where" in
  qemu)
    command -v qemu-aarch64 >/dev/null || missing "qemu-aarch64 not found (Debian's qemu-user)"
    mkdir "$work/device"
    tar -C "$work/device" -xf "$bundle"
    root="$work/device/$ROOT"
    unset QEMU_LD_PREFIX
    # The bundled loader's own record of every library it tries and initializes (-E:
    # for the emulated program only, not for the host's shell); qemu's max CPU without
    # SME, as toolchains/run_on_target.sh runs it (docs/android.md).
    export PTEFORGE_EMULATOR="qemu-aarch64 -cpu max,sme=off -E LD_DEBUG=libs -E LD_DEBUG_OUTPUT=$work/ld"
    on_device() { local program="$1"; shift; (cd "$root" && sh "bin/$program" "$@"); }
    device_speech="$(cd "$(dirname "$speech")" && pwd)/$(basename "$speech")"
    device_messages="$(cd "$(dirname "$messages")" && pwd)/$(basename "$messages")"
    ;;
  adb)
    command -v adb >/dev/null || missing "adb not found: install Debian's adb (apt install adb), connect the device with USB debugging on"
    adb_cmd=(adb)
    [[ -n "$serial" ]] && adb_cmd+=(-s "$serial")
    if ! state="$("${adb_cmd[@]}" get-state 2>&1)"; then
      missing "no device${serial:+ with serial $serial}: adb says '$(tail -n 1 <<<"$state")' (adb devices lists what is connected)"
    fi
    echo "check_bundle: pushing $(du -h "$bundle" | cut -f1) to /data/local/tmp" >&2
    "${adb_cmd[@]}" push "$bundle" /data/local/tmp/$ROOT.tar >/dev/null
    "${adb_cmd[@]}" shell "cd /data/local/tmp && rm -rf $ROOT && tar xf $ROOT.tar && rm $ROOT.tar"
    "${adb_cmd[@]}" push "$speech" "/data/local/tmp/$ROOT/speech.wav" >/dev/null
    device_speech=speech.wav
    "${adb_cmd[@]}" push "$messages" "/data/local/tmp/$ROOT/chat.json" >/dev/null
    device_messages=chat.json
    quote() { printf "'%s' " "${@//\'/\'\\\'\'}"; }
    on_device() {
      local program="$1"; shift
      "${adb_cmd[@]}" shell "cd /data/local/tmp/$ROOT && sh bin/$program $(quote "$@")"
    }
    ;;
  *) missing "unknown place '$where' (qemu or adb)" ;;
esac

echo "check_bundle: translate, ${#SENTENCES[@]} sentences" >&2
"$host_translate" "${SENTENCES[@]}" > "$work/translate.want"
on_device translate "${SENTENCES[@]}" > "$work/translate.got" || fail "translate exited with $?"
diff -u "$work/translate.want" "$work/translate.got" >&2 || fail "translate differs from x86_64"
cat "$work/translate.got"

echo "check_bundle: pte_run, ${#CALLS[@]} calls on the stateful program" >&2
"$host_pte_run" --model="$stateful" "${CALLS[@]}" > "$work/pte_run.want"
on_device pte_run --model=models/stateful.pte "${CALLS[@]}" > "$work/pte_run.got" || fail "pte_run exited with $?"
diff -u "$work/pte_run.want" "$work/pte_run.got" >&2 || fail "pte_run differs from x86_64"

echo "check_bundle: vad, speech segments of $(basename "$speech")" >&2
"$host_vad" --units=samples "$speech" > "$work/vad.want"
on_device vad --units=samples "$device_speech" > "$work/vad.got" || fail "vad exited with $?"
[[ -s "$work/vad.want" ]] || fail "the x86_64 vad found no speech in $speech"
diff -u "$work/vad.want" "$work/vad.got" >&2 || fail "vad differs from x86_64"

PROMPT="The weather is nice today."
for mode in --greedy "--sample --seed=7"; do
  echo "check_bundle: generate $mode, a tiny random language model" >&2
  # shellcheck disable=SC2086
  "$host_generate" --model="$llm" $mode --max_new_tokens=16 "$PROMPT" > "$work/generate.want"
  # shellcheck disable=SC2086
  on_device generate --model="models/$(basename "$llm")" $mode --max_new_tokens=16 "$PROMPT" > "$work/generate.got" \
    || fail "generate $mode exited with $?"
  cmp -s "$work/generate.want" "$work/generate.got" || fail "generate $mode differs from x86_64"
done

echo "check_bundle: translate --beams=4, a tiny random BART (pteforge.seq2seq)" >&2
"$host_translate" --model="$seq2seq" --beams=4 --print_ids "${SENTENCES[@]}" > "$work/seq2seq.want"
on_device translate --model="models/$(basename "$seq2seq")" --beams=4 --print_ids "${SENTENCES[@]}" \
  > "$work/seq2seq.got" || fail "translate on $(basename "$seq2seq") exited with $?"
cmp -s "$work/seq2seq.want" "$work/seq2seq.got" || fail "translate on $(basename "$seq2seq") differs from x86_64"

echo "check_bundle: transcribe, a tiny random Whisper on $(basename "$speech")" >&2
"$host_transcribe" --model="$whisper" --decoding=windows --print_ids "$speech" > "$work/transcribe.want"
on_device transcribe --model="models/$(basename "$whisper")" --decoding=windows --print_ids "$device_speech" > "$work/transcribe.got" \
  || fail "transcribe exited with $?"
cmp -s "$work/transcribe.want" "$work/transcribe.got" || fail "transcribe differs from x86_64"

# The replies, and each turn's --stats line without its timings (from "prefill_ms" on).
turn_counts() { grep '^{"turn"' "$1" | sed -E 's/, "prefill_ms".*$/}/'; }
echo "check_bundle: generate --messages, a three-turn chat on a tiny random chat model" >&2
"$host_generate" --model="$chat_llm" --messages="$messages" --stats --max_new_tokens=16 \
  > "$work/chat.want" 2> "$work/chat_stats.want"
on_device generate --model="models/$(basename "$chat_llm")" --messages="$device_messages" --stats \
  --max_new_tokens=16 > "$work/chat.got" 2> "$work/chat_stats.got" || fail "generate --messages exited with $?"
[[ "$(turn_counts "$work/chat_stats.want" | wc -l)" == 3 ]] || fail "the x86_64 chat did not answer 3 turns"
cmp -s "$work/chat.want" "$work/chat.got" || fail "generate --messages's replies differ from x86_64's"
diff -u <(turn_counts "$work/chat_stats.want") <(turn_counts "$work/chat_stats.got") >&2 \
  || fail "generate --messages's turns differ from x86_64's"

if [[ "$where" == qemu ]]; then
  # Every library the loader tried or initialized lies inside the unpacked bundle.
  logs=("$work"/ld.*)
  [[ -e "${logs[0]}" ]] || fail "the loader wrote no LD_DEBUG record"
  grep -q "calling init: $root/lib/libexecutorch.so" "${logs[@]}" || fail "the record does not show libexecutorch.so from the bundle"
  outside="$(grep -hoE "(trying file|calling init:) ?=? ?/[^ ]*" "${logs[@]}" | grep -oE "/[^ ]*$" | grep -v "^$root/" | sort -u || true)"
  [[ -z "$outside" ]] || fail "the loader opened libraries outside the bundle: $outside"
  echo "check_bundle: the loader opened $(grep -hoE "calling init: /[^ ]*" "${logs[@]}" | sort -u | wc -l) libraries, all from the bundle" >&2
fi
echo "check_bundle: $where: translate (Bergamot and a seq2seq program), pte_run, vad, generate (text and a chat) and transcribe print what the x86_64 builds print" >&2
