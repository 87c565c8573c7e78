#!/usr/bin/env bash
# usage: test_stalls_by_line.sh SOURCE_DIR
# scripts/stalls_by_line.py on Nsight Compute's source page of step 3's rung 09 at M = 1
# (tests/fixtures/ncu_source_gemv_tma_g128_m1.csv: 19 of its SASS lines, exported as CSV on the
# H100 of 2026-12-05): the sums by reason and opcode and the top lines, the same from a gzipped
# copy; bad usage and a CSV without samples exit 2.
set -u
src=$1
# shellcheck source=script_checks.sh
source "$(dirname "$0")/script_checks.sh"
fixture=$src/tests/fixtures/ncu_source_gemv_tma_g128_m1.csv
script=$src/scripts/stalls_by_line.py
out=$(python3 "$script" "$fixture" --top 2 2>&1)
expect "the kernel and its totals" "$out" "^== void gemv_tma_kernel<gemv_tma_w4a16::TmaG128W4A16, \(int\)1>\(T1::Args, int\): 573 samples, 385024 warp instructions executed$"
expect "by reason" "$out" "^by reason: long_sb 87.1%, not_selected 4.9%, math 2.6%"
expect "the barrier spins, by opcode" "$out" "^  BRA +87.4% +8.0%  long_sb 87.1, selected 0.2, wait 0.2$"
expect "the top line, after its wait" "$out" "^-- 46.8% of the samples at \+0x0220, executed 28672 times:$"
expect "what it waits on" "$out" "^   \+0x01e0 +4 SYNCS.PHASECHK.TRANS64.TRYWAIT P1"
lines=$(printf '%s\n' "$out" | grep -c '^-- ')
[ "$lines" -eq 2 ] && echo "ok: --top 2 gives two lines" || { echo "FAILED: --top 2 gave $lines lines"; failures=1; }
gzip -c "$fixture" >"$work/f.csv.gz"
[ "$(python3 "$script" "$work/f.csv.gz" --top 2 2>&1)" = "$out" ] && echo "ok: gzipped, the same" || { echo "FAILED: gzipped differs"; failures=1; }
head -n 1 "$fixture" >"$work/no_samples.csv"
check_exit 2 "no arguments" python3 "$script"
check_exit 2 "--top without a number" python3 "$script" "$fixture" --top x
check_exit 2 "no such file" python3 "$script" "$work/none.csv"
check_exit 2 "no samples column" python3 "$script" "$work/no_samples.csv"
check_exit 0 "--help" python3 "$script" --help
exit $failures
