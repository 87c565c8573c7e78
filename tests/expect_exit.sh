#!/usr/bin/env bash
# usage: expect_exit.sh CODE PROGRAM [ARGS...]
# Runs PROGRAM and passes when it exits with CODE. For CODE 2 (bad input) it also requires the
# program's promise: exactly one line on stderr, starting with "error:".
set -u
expected=$1
shift
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
timeout 60 "$@" >/dev/null 2>"$stderr_file"
code=$?
if [ "$code" -ne "$expected" ]; then
  echo "FAIL: '$*' exited $code, expected $expected"; cat "$stderr_file"; exit 1
fi
if [ "$expected" -eq 2 ]; then
  lines=$(wc -l <"$stderr_file")
  if [ "$lines" -ne 1 ] || ! grep -q '^error: ' "$stderr_file"; then
    echo "FAIL: '$*' should print one 'error:' line on stderr, printed:"; cat "$stderr_file"; exit 1
  fi
  echo "ok: exit 2: $(cat "$stderr_file")"
else
  echo "ok: exit $code"
fi
