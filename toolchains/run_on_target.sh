#!/usr/bin/env bash
# Runs a program built for another target under that target's emulator and exits with
# the program's own exit status, so a test passes exactly when the program succeeds.
#
#   run_on_target.sh <target> <program> [args...]
#
# Targets:
#   aarch64     qemu-aarch64 (user mode) with Debian's aarch64 sysroot as the root for
#               the dynamic loader and libc; the program's own shared libraries come
#               from its rpath. The CPU is qemu's max without SME ($QEMU_CPU if set):
#               with SME, qemu 7.2 gives wrong int8 results from XNNPACK and runs its
#               float32 kernels ~10x slower (docs/android.md).
#   cortex_m55  qemu-system-arm -M mps3-an547 with semihosting: the program's argv is
#               passed through semihosting and its exit() status becomes qemu's.
#               PTEFORGE_QEMU_ICOUNT=N adds -icount shift=N: the emulated clock then
#               advances 2^N ns per instruction (N=0: the program's clock counts
#               instructions).
#   x86_64      the host itself (a program built with other settings than the host
#               build, e.g. on the ExecuTorch runtime from source).
#   x86_64_libfuzzer
#               the host itself (the program is instrumented, not emulated).
#
# The run is bounded: PTEFORGE_TARGET_TIMEOUT seconds if set, otherwise a little less
# than Bazel's own test timeout (TEST_TIMEOUT), so a hang is reported here, by name,
# as a failure. A crash (signal, CPU fault) is a non-zero status too.
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 <aarch64|cortex_m55|x86_64|x86_64_libfuzzer> <program> [args...]" >&2
  exit 2
fi
target="$1"
program="$2"
shift 2

if [[ ! -x "$program" ]]; then
  echo "run_on_target: $program is not an executable file" >&2
  exit 2
fi

case "$target" in
  aarch64)
    command=(qemu-aarch64 -cpu "${QEMU_CPU:-max,sme=off}" -L /usr/aarch64-linux-gnu "$program" "$@")
    ;;
  cortex_m55)
    # The semihosting command line is the program name followed by its arguments.
    semihosting="enable=on,target=native,arg=$(basename "$program")"
    for arg in "$@"; do
      if [[ "$arg" == *[,\ ]* ]]; then
        echo "run_on_target: cortex_m55 arguments cannot contain commas or spaces: '$arg'" >&2
        exit 2
      fi
      semihosting+=",arg=$arg"
    done
    command=(qemu-system-arm -M mps3-an547 -m 2G -nographic -monitor none
             ${PTEFORGE_QEMU_ICOUNT:+-icount "shift=$PTEFORGE_QEMU_ICOUNT"}
             -semihosting-config "$semihosting" -kernel "$program")
    ;;
  x86_64)
    command=("$program" "$@")
    ;;
  x86_64_libfuzzer)
    # A libFuzzer binary: new inputs go to a fresh writable corpus directory (the
    # seeds given as arguments are read-only runfiles); crash reproducers are kept
    # with the test's outputs.
    work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fuzz.XXXXXX")"
    command=("$program" "-artifact_prefix=${TEST_UNDECLARED_OUTPUTS_DIR:-$work}/" "$work" "$@")
    ;;
  *)
    echo "run_on_target: unknown target '$target' (expected aarch64, cortex_m55, x86_64 or x86_64_libfuzzer)" >&2
    exit 2
    ;;
esac

timeout_s="${PTEFORGE_TARGET_TIMEOUT:-$(( ${TEST_TIMEOUT:-300} > 20 ? ${TEST_TIMEOUT:-300} - 10 : ${TEST_TIMEOUT:-300} ))}"

echo "run_on_target: [$target] ${command[*]}" >&2
timeout --kill-after=5 "$timeout_s" "${command[@]}"
status=$?
if [[ $status -eq 124 || $status -eq 137 ]]; then
  echo "run_on_target: [$target] FAILED: no exit after ${timeout_s} s (hang?); stopped" >&2
  exit 124
elif [[ $status -gt 128 && $status -le 192 ]]; then
  echo "run_on_target: [$target] FAILED: killed by signal $((status - 128)) (crash)" >&2
elif [[ $status -ne 0 ]]; then
  echo "run_on_target: [$target] FAILED: exit status $status" >&2
else
  echo "run_on_target: [$target] passed" >&2
fi
exit "$status"
