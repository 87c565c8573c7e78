#!/usr/bin/env bash
# usage: test_tests_for_kernels.sh SOURCE_DIR BUILD_DIR
# scripts/tests_for_kernels.py on this build's own test list: for step 3's wgmma_g128 it picks the
# shape, lesson and canary tests, the sanitizer tests that run every kernel and those that name
# wgmma_g128, and not a test of another kernel (mma_g128's ragged tiles) or of another step.
set -u
src=$1 build=$2
regex=$(python3 "$src/scripts/tests_for_kernels.py" "$build" step3_w4a16 wgmma_g128) || { echo "FAILED: exit $?"; exit 1; }
failures=0
picked() { grep -qx "\^$1\\\$" <<<"$(tr '|' '\n' <<<"$regex")"; }
for want in step3_shape_37x100x4224 step3_lesson_cases step3_canary_ignore_zero step3_memcheck_37x100x4224 \
            step3_racecheck_wgmma_200x8200x640; do
  picked "$want" || { echo "FAILED: $want not picked"; failures=$((failures + 1)); }
done
for unwanted in step3_memcheck_ragged_tiles_mma_g128 step4_shape_37x100x4224 step3_cli_help; do
  picked "$unwanted" && { echo "FAILED: $unwanted picked"; failures=$((failures + 1)); }
done
[ $failures -eq 0 ] && echo "ok: tests_for_kernels.py picks $(tr '|' '\n' <<<"$regex" | wc -l) tests for wgmma_g128"
exit $((failures != 0))
