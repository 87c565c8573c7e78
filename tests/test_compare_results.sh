#!/usr/bin/env bash
# usage: test_compare_results.sh SOURCE_DIR
# scripts/compare_results.py flags a kernel that got slower or failed, and only those.
set -u
script="$1/scripts/compare_results.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
header="step,case,kernel,M,N,K,time_ms,tflops,gbps,pct_roofline,error_metric,error_value,status,gpu,cc,time_min_ms,ops_unit,l2,quant_nmse"
row() { echo "step9,decode,$1,1,4096,4096,$2,1,1,1,err,0,$3,NVIDIA H200,90,$2,TOPS,cold,nan"; }
{ echo "$header"; row steady 1.000 PASS; row faster 1.000 PASS; row slower 1.000 PASS; row broken 1.000 PASS; row gone 1.000 PASS; } >"$work/old.csv"
{ echo "$header"; row steady 1.020 PASS; row faster 0.500 PASS; row slower 1.200 PASS; row broken 1.000 FAIL; row added 1.000 PASS; } >"$work/new.csv"
failures=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
out=$(python3 "$script" "$work/old.csv" "$work/new.csv"); code=$?
check "exit 1 when something is flagged" "[ $code -eq 1 ]"
check "the slower kernel is flagged" "printf '%s\n' \"\$out\" | grep -q 'slower .*SLOWER'"
check "the failing kernel is flagged" "printf '%s\n' \"\$out\" | grep -q 'broken .*FAIL'"
check "2% is within the 5% threshold" "! printf '%s\n' \"\$out\" | grep -q 'steady .*SLOWER'"
check "a faster kernel shows its speed-up" "printf '%s\n' \"\$out\" | grep -q 'faster .* 2.00'"
check "rows in one file only are listed" "printf '%s\n' \"\$out\" | grep -q 'only in OLD: step9 / decode / gone' && printf '%s\n' \"\$out\" | grep -q 'only in NEW: step9 / decode / added'"
check "exactly two flagged" "printf '%s\n' \"\$out\" | grep -q '^2 flagged'"
python3 "$script" "$work/old.csv" "$work/old.csv" >/dev/null; code=$?
check "a run against itself flags nothing (exit 0)" "[ $code -eq 0 ]"
python3 "$script" "$work/old.csv" "$work/missing.csv" >/dev/null 2>&1; code=$?
check "a missing file is exit 2" "[ $code -eq 2 ]"
exit $((failures != 0))
