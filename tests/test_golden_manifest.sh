#!/usr/bin/env bash
# usage: test_golden_manifest.sh PROGRAM GOLDEN_ROOT
# A folder of golden cases is held to its manifest.json: a copy with a case, a file or bytes gone,
# a manifest broken or missing, or a folder it does not list must be refused (exit 2, one error
# line) by PROGRAM --golden; the untouched copy passes (exit 0).
set -u
program=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fresh() { rm -rf "$work/g"; cp -r "$root" "$work/g"; chmod -R u+w "$work/g"; }
expect() {  # expect CODE WHAT
  "$program" --golden "$work/g" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -ne "$1" ] || { [ "$1" -eq 2 ] && [ "$(wc -l <"$work/err")" -ne 1 ]; }; then
    echo "FAILED: $2: exit $rc (expected $1)"; tail -n 5 "$work/out" "$work/err"; failures=1
  else
    echo "ok: $2: exit $rc $(cat "$work/err")"
  fi
}
fresh; expect 0 "the untouched cases"
fresh; rm -r "$work/g/normal_s2"; expect 2 "a case deleted"
fresh; rm "$work/g/normal_s2/x.f32"; expect 2 "a case's x.f32 deleted"
fresh; truncate -s -8 "$work/g/tiny_scales/dots.f64"; expect 2 "a file 8 bytes short"
fresh; rm "$work/g/manifest.json"; expect 2 "no manifest"
fresh; head -c 500 "$root/manifest.json" >"$work/g/manifest.json"; expect 2 "a manifest cut short"
fresh; mkdir "$work/g/stray_case"; cp "$root/normal_s1/"* "$work/g/stray_case/"; expect 2 "a case the manifest does not list"
exit $failures
