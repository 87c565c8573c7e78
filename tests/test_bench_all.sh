#!/usr/bin/env bash
# usage: test_bench_all.sh SOURCE_DIR
# scripts/bench_all.sh without a GPU: a fake nvidia-smi that lists none. It must stop at once
# with exit 77 and exactly one line, and write nothing.
set -u
src=$1
# shellcheck source=no_gpu.sh
source "$(dirname "$0")/no_gpu.sh"
out=$(PATH="$work/bin:$PATH" RESULTS_DIR="$work/results" bash "$src/scripts/bench_all.sh" 2>&1)
rc=$?
failures=0
[ $rc -eq 77 ] || { echo "FAILED: exit $rc, expected 77"; failures=1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAILED: expected one line, got:"; printf '%s\n' "$out"; failures=1; }
printf '%s\n' "$out" | grep -q "no GPU visible" || { echo "FAILED: the line does not say why"; failures=1; }
[ ! -e "$work/results" ] || { echo "FAILED: it wrote $work/results"; failures=1; }
# A REPEAT that is not a count is refused at once, GPU or not: exit 2, one line.
bad=$(PATH="$work/bin:$PATH" RESULTS_DIR="$work/results" REPEAT=three bash "$src/scripts/bench_all.sh" 2>&1)
rc=$?
[ $rc -eq 2 ] || { echo "FAILED: REPEAT=three: exit $rc, expected 2"; failures=1; }
[ "$(printf '%s\n' "$bad" | wc -l)" -eq 1 ] && grep -q "REPEAT" <<<"$bad" || { echo "FAILED: REPEAT=three: $bad"; failures=1; }
[ $failures -eq 0 ] && echo "ok: bench_all.sh without a GPU: $out"
exit $failures
