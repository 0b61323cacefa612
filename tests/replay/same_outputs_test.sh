#!/usr/bin/env bash
# Runs two programs with the same arguments and requires that both succeed and print
# exactly the same thing: the same .pte on two ExecuTorch runtimes (the wheel's and
# the one built from source) must give bit-identical outputs.
#
#   same_outputs_test.sh <program A> <program B> [args...]
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 <program A> <program B> [args...]" >&2
  exit 2
fi
a="$1"
b="$2"
shift 2
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/same_outputs.XXXXXX")"
for side in a b; do
  program="${!side}"
  if ! "$program" "$@" >"$work/$side.out" 2>"$work/$side.err"; then
    echo "FAILED: $program $* exited with an error:" >&2
    cat "$work/$side.err" "$work/$side.out" >&2
    exit 1
  fi
done
if ! cmp -s "$work/a.out" "$work/b.out"; then
  echo "FAILED: the outputs differ ($a vs $b); first differences:" >&2
  diff "$work/a.out" "$work/b.out" | cut -c1-300 | head -20 >&2
  exit 1
fi
lines=$(wc -l <"$work/a.out")
echo "same outputs ($lines lines) from $a and $b"
tail -n 1 "$work/a.out"
