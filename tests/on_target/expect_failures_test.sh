#!/usr/bin/env bash
# Checks that on_target_test reports failure for a program that exits with the wrong
# status, one that crashes and one that hangs, on every emulated target, and says why.
#
#   expect_failures_test.sh <test-executable> <expected message> [...pairs]
set -uo pipefail

# Hangs are cut short here; Bazel's own timeout would take minutes.
export PTEFORGE_TARGET_TIMEOUT=5

failures=0
while [[ $# -ge 2 ]]; do
  test_program="$1"
  expected="$2"
  shift 2
  output=$("$test_program" 2>&1)
  status=$?
  if [[ $status -eq 0 ]]; then
    echo "FAIL: $test_program passed; it should have failed with '$expected'"
    failures=$((failures + 1))
  elif [[ "$output" != *"$expected"* ]]; then
    echo "FAIL: $test_program failed (status $status) without '$expected' in its output:"
    echo "$output" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: $test_program failed as expected (status $status): $expected"
  fi
done
exit $((failures > 0))
