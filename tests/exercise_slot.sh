#!/usr/bin/env bash
# usage: exercise_slot.sh PROGRAM EXERCISE [ARGS...]
# An exercise slot works as promised: while the file is the shipped stub (--list says
# "unsolved"), running it fails (exit 1) and says it is an unsolved exercise, not a bug; once the
# learner has written it (and set its kExNWritten), it must pass. Exit 77 without a GPU.
set -u
program=$1 exercise=$2
shift 2
listing=$("$program" --list | awk -v ex="$exercise" '$1 == ex')
if [ -z "$listing" ]; then echo "FAIL: $program --list has no kernel '$exercise'"; exit 1; fi
out=$("$program" --kernel "$exercise" "$@" 2>&1)  # ARGS: --check-only for the GPU steps
rc=$?
[ $rc -eq 77 ] && { echo "skipped: no GPU"; exit 77; }
if printf '%s\n' "$listing" | grep -q "unsolved"; then
  if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "$exercise: an unsolved exercise, not a bug"; then
    echo "ok: $exercise is the shipped stub: it fails and says so"; exit 0
  fi
  printf '%s\n' "$out" | tail -n 20; echo "FAIL: the stub $exercise should fail (exit 1) with the unsolved-exercise line; exit $rc"; exit 1
fi
printf '%s\n' "$out" | tail -n 20
[ $rc -eq 0 ] && echo "ok: $exercise is written and passes" || echo "FAIL: $exercise is marked written but exits $rc"
exit $rc
