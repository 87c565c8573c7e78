#!/usr/bin/env bash
# usage: test_readme_commands.sh SOURCE_DIR BUILD_DIR
# Runs, line by line, the shell commands of the top README's "No GPU? Start here" section, as a
# reader would from the repository root (make lines are left out: they are what runs this test).
# Every command must exit 0.
set -u
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$build" "$work/build"
ln -s "$src/common" "$work/common"
commands=$(awk '/^## No GPU\? Start here/ {on = 1; next} /^## / {on = 0} on' "$src/README.md" |
           awk '/^```sh/ {code = 1; next} /^```/ {code = 0} code' | grep -v '^make ')
[ -n "$commands" ] || { echo "FAIL: no commands found in the README's 'No GPU? Start here' section"; exit 1; }
failures=0
while IFS= read -r line; do
  if (cd "$work" && bash -c "$line") >"$work/out" 2>&1; then
    echo "ok: $line"
  else
    echo "FAIL: $line"; cat "$work/out"; failures=$((failures + 1))
  fi
done <<<"$commands"
exit $((failures != 0))
