#!/usr/bin/env bash
# stack_bound_test.sh <stack_bound> <image>...: every image's worst-case stack fits.
set -uo pipefail
tool="$1"
shift
failures=0
for image in "$@"; do
  echo "== $image"
  "$tool" --elf="$image" --top=6 || failures=$((failures + 1))
done
exit $((failures > 0))
