#!/usr/bin/env bash
# usage: sanitize.sh SANITIZER TOOL PROGRAM [ARGS...]
# Runs PROGRAM under compute-sanitizer's TOOL (memcheck, racecheck, initcheck, synccheck) and
# passes when the program passes and the tool reports no error. Exit 77 when there is no GPU.
# SANITIZER_TOOL in the environment replaces TOOL (scripts/sanitize.sh runs every tool that way).
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -u
sanitizer=$1 tool=${SANITIZER_TOOL:-$2}
shift 2
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; exit 77; fi
if ! command -v "$sanitizer" >/dev/null 2>&1; then echo "FAIL: compute-sanitizer not found at '$sanitizer'"; exit 1; fi
extra=()
[ "$tool" = racecheck ] && extra=(--racecheck-report all)
# Allocations often lie back to back, so a read past one buffer can land in the next and look legal.
# A guard zone after every allocation turns it into an error (a ragged tile reads up to ~32 KB past).
if [ "$tool" = memcheck ] && "$sanitizer" --help 2>/dev/null | grep -q -- '--padding'; then extra=(--padding 1048576); fi
"$sanitizer" --tool "$tool" --error-exitcode 99 "${extra[@]}" "$@"
code=$?
[ $code -eq 0 ] && echo "ok: $tool found nothing and the program passed" || echo "FAIL: $tool run exited $code"
exit $code
