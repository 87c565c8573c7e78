#!/usr/bin/env bash
# usage: cli_table.sh PROGRAM TABLE [NAME=VALUE ...]
# Runs PROGRAM once per line of TABLE (its arguments, as shell words; # starts a comment; @NAME@
# is replaced by VALUE) and passes when every line is refused the way the programs promise:
# exit 2, nothing on stdout (no work started), exactly one line on stderr starting with "error:",
# and no file left behind (a --csv file named on a refused line must not be created).
set -u
program=$1
table=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
lines=0
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in ''|'#'*) continue ;; esac
  for binding in "$@" "TMP=$work"; do line=${line//@${binding%%=*}@/${binding#*=}}; done
  eval "set -- $line"
  lines=$((lines + 1))
  timeout 60 "$program" "$@" >"$work/out" 2>"$work/err"
  code=$?
  left=$(cd "$work" && find . -mindepth 1 ! -name out ! -name err | sed 's|^\./||' | paste -sd' ')
  if [ -n "$left" ]; then
    echo "FAIL: $line -> left behind: $left"
    (cd "$work" && find . -mindepth 1 -maxdepth 1 ! -name out ! -name err -exec rm -rf {} +)
    failures=$((failures + 1))
  elif [ $code -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q '^error: ' "$work/err"; then
    echo "ok: $line -> $(cat "$work/err")"
  else
    echo "FAIL: $line -> exit $code, stdout $(wc -l <"$work/out") lines, stderr:"; cat "$work/err"
    failures=$((failures + 1))
  fi
done <"$table"
echo "$lines bad command lines, $failures not refused as promised"
[ $failures -eq 0 ]
