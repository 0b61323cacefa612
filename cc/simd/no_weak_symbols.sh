#!/usr/bin/env bash
# Fails when an eight-lane (AVX2) archive defines a weak symbol. Such a symbol (an
# inline function or template instantiated in the file, e.g. a standard algorithm) has
# twins in other objects compiled without AVX2, and the linker keeps one of them for
# every caller: AVX2 code could then run on a CPU without AVX2 (bazel/simd_lanes.bzl).
#   no_weak_symbols.sh ARCHIVE...
set -euo pipefail
status=0
for archive in "$@"; do
  [[ "$archive" == *.a ]] || continue
  weak="$(nm --defined-only "$archive" | awk 'NF == 3 && $2 ~ /^[WVu]$/ {print $3}' | c++filt)"
  if [[ -n "$weak" ]]; then
    echo "$archive defines weak symbols (inline or template code compiled for AVX2):" >&2
    echo "$weak" | sed 's/^/  /' >&2
    status=1
  fi
done
exit "$status"
