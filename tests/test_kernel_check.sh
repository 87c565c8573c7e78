#!/usr/bin/env bash
# usage: test_kernel_check.sh SOURCE_DIR
# scripts/kernel_check.sh before it builds anything: bad command lines are refused with exit 2 and
# one line that says why; without a GPU (a fake nvidia-smi that lists none) it stops with exit 77
# and one line, and writes nothing.
set -u
src=$1
# shellcheck source=no_gpu.sh
source "$(dirname "$0")/no_gpu.sh"
failures=0
expect() {  # expect CODE WORDS-IN-THE-LINE -- ARGS...
  local code=$1 words=$2
  shift 3
  local out rc
  out=$(PATH="$work/bin:$PATH" LOG_DIR="$work/logs" bash "$src/scripts/kernel_check.sh" "$@" 2>&1)
  rc=$?
  if [ $rc -ne "$code" ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] || ! grep -q -- "$words" <<<"$out"; then
    echo "FAILED: kernel_check.sh $* -> exit $rc (expected $code, one line with '$words'):"; printf '%s\n' "$out"
    failures=$((failures + 1))
  fi
}
expect 2 "name a step" --
expect 2 "name a step" -- step3_w4a16
expect 2 "no step 'step9_none'" -- step9_none wgmma_g128
expect 2 "separated by commas" -- step3_w4a16 "wgmma_g128;rm"
expect 2 "MxNxK" -- step3_w4a16 wgmma_g128 512x4096
expect 2 "MxNxK" -- step3_w4a16 wgmma_g128 0x4096x4096
expect 77 "no GPU visible" -- step3_w4a16 wgmma_g128 512x4096x4096
[ ! -e "$work/logs" ] || { echo "FAILED: it wrote $work/logs"; failures=$((failures + 1)); }
[ $failures -eq 0 ] && echo "ok: kernel_check.sh refuses bad command lines (exit 2) and stops without a GPU (exit 77)"
exit $((failures != 0))
