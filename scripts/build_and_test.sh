#!/usr/bin/env bash
# The one command that checks everything on a GPU machine:
#   detect the GPU and its architecture, build for it, run the test suite, run every step's
#   lesson with timing, and print a one-screen summary (last, so it is what a terminal shows).
#
# usage: scripts/build_and_test.sh [STEP...]        (default: every step that exists)
# env:   LOG_DIR   where full logs and results.csv go (default: build/logs)
#        CUDA_ARCH build for this architecture instead of the detected one (sm_90, sm_90a, "75;90")
#        ARGS      extra flags for every step run (e.g. "--iters 50")
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."
LOG_DIR=${LOG_DIR:-build/logs}
mkdir -p "$LOG_DIR"
CSV="$LOG_DIR/results.csv"
rm -f "$CSV"

gpu_line=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
cuda_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')

status=0
# CUDA_ARCH empty: CMake detects the GPU (and says so); the configure line names what it chose.
if ! make build CUDA_ARCH="${CUDA_ARCH:-}" >"$LOG_DIR/build.log" 2>&1; then
  tail -n 30 "$LOG_DIR/build.log"; echo "BUILD FAILED (full log: $LOG_DIR/build.log)"; exit 1
fi
arch_line=$(sed -n 's/.*architectures \(.*\)$/\1/p' "$LOG_DIR/build.log" | tail -n 1)
run_info="GPU: ${gpu_line:-none visible} | CUDA ${cuda_version:-?} | built for ${arch_line:-?} | $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$run_info" | tee "$LOG_DIR/run_info.txt"

(cd build && ctest --output-on-failure) >"$LOG_DIR/ctest.log" 2>&1 || status=1
test_summary=$(grep -E "tests passed|tests failed" "$LOG_DIR/ctest.log" | tail -n 1)
skipped=$(grep -c "\*\*\*Skipped" "$LOG_DIR/ctest.log")

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  for src in step*_*/step*_*.cu; do steps+=("$(basename "$src" .cu)"); done
fi
# shellcheck source=step_runs.sh
source scripts/step_runs.sh
declare -A step_rc
for s in "${steps[@]}"; do
  if [ ! -x "build/$s" ]; then echo "no such step program: build/$s"; exit 2; fi
  csv=(--csv "$CSV")
  step_takes_csv "$s" || csv=()
  # shellcheck disable=SC2086
  ./build/"$s" "${csv[@]}" ${ARGS:-} >"$LOG_DIR/$s.log" 2>&1
  step_rc[$s]=$?
  case ${step_rc[$s]} in 0|77) ;; *) status=1 ;; esac
  for flag in $(step_extra_runs "$s"); do
    # shellcheck disable=SC2086
    ./build/"$s" "$flag" --csv "$CSV" ${ARGS:-} >"$LOG_DIR/$s$flag.log" 2>&1 || status=1
  done
done

# The profiles, stalls by line and instruction counts the lessons quote (scripts/profiles.txt,
# scripts/stalls.txt, scripts/sass_mix.txt), when Nsight Compute and cuobjdump are there.
# quote_into LOG WHAT CMD... runs CMD into LOG; when it fails the log is dropped, so the README keeps
# its last good block, and unless the tool was missing (exit 77) WHAT is named in the summary.
extras_failed=()
quote_into() {
  local log=$1 what=$2 rc
  shift 2
  "$@" >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then rm -f "$log"; [ $rc -eq 77 ] || extras_failed+=("$what (exit $rc)"); fi
}
# quote_profiles LIST PREFIX [--by-line]: scripts/profile.sh on each line of LIST (STEP KERNEL
# [FUNCTION=REGEX] [ARGS]) into LOG_DIR/PREFIX--STEP--KERNEL--mM.log.
quote_profiles() {
  local list=$1 prefix=$2 mode=${3:-} pstep pkernel pargs function m
  while read -r pstep pkernel pargs; do
    case "$pstep" in ''|'#'*) continue ;; esac
    function=
    case "$pargs" in FUNCTION=*) function=${pargs%% *}; function=${function#FUNCTION=}; pargs=${pargs#"FUNCTION=$function"} ;; esac
    m=$(printf '%s\n' "$pargs" | sed -n 's/.*--m \([0-9]*\).*/\1/p')
    # shellcheck disable=SC2086
    quote_into "$LOG_DIR/$prefix--$pstep--$pkernel--m${m:-0}.log" "$prefix $pstep $pkernel" \
      env FUNCTION="$function" scripts/profile.sh $mode "$pstep" "$pkernel" $pargs
  done <"$list"
}
quote_profiles scripts/profiles.txt profile
quote_profiles scripts/stalls.txt stalls --by-line
while read -r label sstep sfunction sargs; do
  case "$label" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086
  quote_into "$LOG_DIR/sass--$sstep--$label.log" "sass mix $sstep $label" python3 scripts/sass_mix.py "$sstep" "$sfunction" $sargs
done <scripts/sass_mix.txt

verdict() { case $1 in 0) echo PASS ;; 77) echo "SKIP (no usable GPU)" ;; *) echo FAIL ;; esac; }
echo
echo "tests: $test_summary ($skipped skipped)   full logs: $LOG_DIR"
for s in "${steps[@]}"; do echo "$s: exit ${step_rc[$s]} $(verdict "${step_rc[$s]}")"; done
for e in "${extras_failed[@]}"; do echo "FAILED: $e; its README block is left as it was"; status=1; done
if [ -f "$CSV" ]; then
  echo
  awk -F, 'NR > 1 { printf "%-12s %-34.34s %-18s %9s %8s %7s %6s %s\n", $1, $2, $3, ($7 == "nan" ? "-" : $7), ($8 == "nan" ? "-" : $8), ($9 == "nan" ? "-" : $9), ($10 == "nan" ? "-" : $10), $13 }
           NR == 1 { printf "%-12s %-34s %-18s %9s %8s %7s %6s %s\n", "step", "case", "kernel", "ms", "TFLOPS", "GB/s", "%roof", "check" }' "$CSV"
fi
exit $status
