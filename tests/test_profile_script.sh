#!/usr/bin/env bash
# usage: test_profile_script.sh SOURCE_DIR
# scripts/profile.sh where it cannot profile: bad usage exits 2; no ncu, or no GPU (a fake
# nvidia-smi that lists none, with a fake ncu), exits 77 with one line.
set -u
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check EXPECTED_RC EXPECTED_TEXT WHAT COMMAND...
  local want=$1 text=$2 what=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -ne "$want" ] || ! printf '%s\n' "$out" | grep -q "$text"; then
    echo "FAILED: $what: exit $rc (want $want): $out"; failures=1
  else
    echo "ok: $what: $out"
  fi
}
check 2 "usage:" "no arguments" bash "$src/scripts/profile.sh"
check 77 "Nsight Compute not found" "no ncu" env NCU="$work/no-ncu" bash "$src/scripts/profile.sh" step3_w4a16 mma_g128
mkdir -p "$work/bin"
printf '#!/bin/sh\nexit 9\n' >"$work/bin/nvidia-smi"
printf '#!/bin/sh\necho fake ncu\n' >"$work/bin/ncu"
chmod +x "$work/bin/nvidia-smi" "$work/bin/ncu"
check 77 "no GPU visible" "no GPU" env PATH="$work/bin:$PATH" NCU="$work/bin/ncu" bash "$src/scripts/profile.sh" step3_w4a16 mma_g128
exit $failures
