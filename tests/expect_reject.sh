#!/usr/bin/env bash
# usage: expect_reject.sh KERNEL PROGRAM [ARGS...]
# Runs PROGRAM --kernel KERNEL ARGS, where KERNEL is a canary (a deliberately wrong kernel), and
# passes only when the program's checks reject it: exit 1 and a FAIL on a line naming KERNEL.
# A check that lets a canary through cannot be trusted. Exit 77 (no usable GPU) passes through.
set -u
kernel=$1
shift
out=$(timeout 600 "$@" --kernel "$kernel" 2>&1)
code=$?
[ $code -eq 77 ] && { echo "skipped: no usable GPU"; exit 77; }
if [ $code -eq 1 ] && printf '%s\n' "$out" | grep -q "^ *$kernel .*FAIL"; then
  printf '%s\n' "$out" | grep "$kernel" | tail -n 3
  echo "ok: the checker rejected $kernel"
  exit 0
fi
printf '%s\n' "$out" | tail -n 20
echo "FAIL: $kernel was not rejected (exit $code): this check cannot fail"
exit 1
