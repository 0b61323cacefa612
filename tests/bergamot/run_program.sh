#!/usr/bin/env bash
# Runs a program with the remaining arguments; its exit status is the test's.
program="$1"
shift
exec "$program" "$@"
