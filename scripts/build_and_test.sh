#!/usr/bin/env bash
# The one command that checks everything on a GPU machine:
#   detect the GPU and its architecture, build for it, run the test suite, run every step's
#   lesson with timing, and print a one-screen summary (last, so it is what a terminal shows).
#
# usage: scripts/build_and_test.sh [STEP...]        (default: every step that exists)
# env:   LOG_DIR   where full logs and results.csv go (default: build/logs)
#        CUDA_ARCH override the detected architecture (sm_90, 90, "75;90")
#        ARGS      extra flags for every step run (e.g. "--iters 50")
set -uo pipefail
cd "$(dirname "$0")/.."
LOG_DIR=${LOG_DIR:-build/logs}
mkdir -p "$LOG_DIR"
CSV="$LOG_DIR/results.csv"
rm -f "$CSV"

gpu_line=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
if [ -z "${CUDA_ARCH:-}" ] && [ -n "$gpu_line" ]; then
  CUDA_ARCH="sm_$(echo "$gpu_line" | awk -F', ' '{print $2}' | tr -d .)"
fi
cuda_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
run_info="GPU: ${gpu_line:-none visible} | CUDA ${cuda_version:-?} | CUDA_ARCH ${CUDA_ARCH:-fallback} | $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$run_info" | tee "$LOG_DIR/run_info.txt"

status=0
if ! make build CUDA_ARCH="${CUDA_ARCH:-}" >"$LOG_DIR/build.log" 2>&1; then
  tail -n 30 "$LOG_DIR/build.log"; echo "BUILD FAILED (full log: $LOG_DIR/build.log)"; exit 1
fi

(cd build && ctest --output-on-failure) >"$LOG_DIR/ctest.log" 2>&1 || status=1
test_summary=$(grep -E "tests passed|tests failed" "$LOG_DIR/ctest.log" | tail -n 1)
skipped=$(grep -c "(Skipped)" "$LOG_DIR/ctest.log")

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  for src in step*_*/step*_*.cu; do steps+=("$(basename "$src" .cu)"); done
fi
declare -A step_rc
for s in "${steps[@]}"; do
  # shellcheck disable=SC2086
  ./build/"$s" --csv "$CSV" ${ARGS:-} >"$LOG_DIR/$s.log" 2>&1
  step_rc[$s]=$?
  [ "${step_rc[$s]}" -eq 0 ] || status=1
done

echo
echo "tests: $test_summary ($skipped skipped)   full logs: $LOG_DIR"
for s in "${steps[@]}"; do
  echo "$s: exit ${step_rc[$s]} $( [ "${step_rc[$s]}" -eq 0 ] && echo PASS || echo FAIL)"
done
if [ -f "$CSV" ]; then
  echo
  awk -F, 'NR > 1 { printf "%-12s %-34.34s %-18s %9s %8s %7s %6s %s\n", $1, $2, $3, ($7 == "nan" ? "-" : $7), ($8 == "nan" ? "-" : $8), ($9 == "nan" ? "-" : $9), ($10 == "nan" ? "-" : $10), $13 }
           NR == 1 { printf "%-12s %-34s %-18s %9s %8s %7s %6s %s\n", "step", "case", "kernel", "ms", "TFLOPS", "GB/s", "%roof", "check" }' "$CSV"
fi
exit $status
