#!/usr/bin/env bash
# usage: test_script_help.sh SOURCE_DIR
# Every script answers --help (and -h) with its usage and exit 0, at once: no build, no run, no
# GPU needed. (scripts/step_runs.sh is sourced by the others, not run.)
set -u
src=$1
failures=0
for script in "$src"/scripts/*.py "$src"/scripts/*.sh "$src"/tests/sanitize.sh; do
  case "$script" in */step_runs.sh) continue ;; esac
  for flag in --help -h; do
    if [[ "$script" == *.py ]]; then out=$(timeout 20 python3 "$script" "$flag" 2>&1); else out=$(timeout 20 bash "$script" "$flag" 2>&1); fi
    code=$?
    if [ $code -ne 0 ] || [ -z "$out" ]; then
      echo "FAIL: ${script#$src/} $flag -> exit $code, $(wc -l <<<"$out") lines"; failures=$((failures + 1))
    fi
  done
  [ $failures -eq 0 ] && echo "ok: ${script#$src/} --help"
done
exit $((failures != 0))
