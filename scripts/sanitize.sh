#!/usr/bin/env bash
# Every compute-sanitizer tool over every step's awkward shapes, on a GPU machine:
#   memcheck (out-of-bounds and misaligned accesses), racecheck (shared-memory races),
#   initcheck (reads of memory nothing wrote), synccheck (barriers that not all threads reach).
# The shapes are the CTest tests labelled "sanitizer" (see stepN_*/tests.cmake); `make test` runs
# them with memcheck or racecheck, this script with each tool in turn.
#
# usage: scripts/sanitize.sh [TOOL...]      (default: all four)     needs a built tree (make)
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d build ] || { echo "no build/ directory: run make first"; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "no GPU visible: compute-sanitizer needs one"; exit 77; fi
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck initcheck synccheck)
status=0
summary=()
for tool in "${tools[@]}"; do
  log=build/sanitize_$tool.log
  if (cd build && SANITIZER_TOOL=$tool ctest -L sanitizer --output-on-failure) >"$log" 2>&1; then
    summary+=("$tool: clean ($(grep -E 'tests passed' "$log"))")
  else
    summary+=("$tool: ERRORS, see $log")
    status=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
