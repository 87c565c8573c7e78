#!/usr/bin/env bash
# Benchmarks every step on the current GPU into results/<gpu-name>/, for the charts
# (scripts/plot_results.py) and for comparing runs (scripts/compare_results.py).
#
# usage: scripts/bench_all.sh [STEP...]       (default: every step that exists)
# env:   RESULTS_DIR  where to write (default: results/<gpu name>, spaces as underscores)
#        CUDA_ARCH    build for this architecture instead of the detected one
#        ARGS         extra flags for every step run (e.g. "--iters 50")
#        REPEAT       run each step's runs this many times (default 1), all into its CSV: the scripts
#                     that read it take each kernel's median run, so a goal met by a hair in one
#                     run is judged on the median of several (REPEAT=3, say)
# Writes <step>.csv per step (step 3's also holds its --sweep, step 4's its --summit), run_info.txt (GPU, CUDA,
# architecture, date) and logs/<step>.log; prints one progress line per step. Exit 0 when every
# check passed, 1 when one failed, 77 without a GPU (one line, nothing written).
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."

gpu_line=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
repeat=${REPEAT:-1}
if ! [[ $repeat =~ ^[1-9][0-9]?$ ]]; then
  echo "bench_all.sh: REPEAT must be a whole number from 1 to 99, not '$repeat'"
  exit 2
fi
if [ -z "$gpu_line" ]; then
  echo "bench_all.sh: no GPU visible (nvidia-smi lists none); run it on a machine with an NVIDIA GPU"
  exit 77
fi
gpu_name=$(printf '%s' "${gpu_line%%,*}" | tr -c 'A-Za-z0-9.\n-' '_')
out=${RESULTS_DIR:-results/$gpu_name}
mkdir -p "$out/logs"

echo "bench_all: building (log: $out/logs/build.log)"
if ! make build CUDA_ARCH="${CUDA_ARCH:-}" >"$out/logs/build.log" 2>&1; then
  tail -n 20 "$out/logs/build.log"; echo "bench_all: BUILD FAILED"; exit 1
fi
arch_line=$(sed -n 's/.*architectures \(.*\)$/\1/p' "$out/logs/build.log" | tail -n 1)
cuda_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
echo "GPU: $gpu_line | CUDA ${cuda_version:-?} | built for ${arch_line:-?} | $(date -u '+%Y-%m-%d %H:%M UTC')" >"$out/run_info.txt"

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  for src in step*_*/step*_*.cu; do steps+=("$(basename "$src" .cu)"); done
fi
# shellcheck source=step_runs.sh
source scripts/step_runs.sh
status=0
i=0
for s in "${steps[@]}"; do
  i=$((i + 1))
  if [ ! -x "build/$s" ]; then echo "bench_all: no such step program: build/$s"; exit 2; fi
  rm -f "$out/$s.csv"
  if ! step_takes_csv "$s"; then
    echo "[$i/${#steps[@]}] $s: times nothing (no --csv in its --help); skipped"
    continue
  fi
  start=$(date +%s)
  runs=("")
  for flag in $(step_extra_runs "$s"); do runs+=("$flag"); done
  verdict=PASS
  : >"$out/logs/$s.log"
  for ((r = 1; r <= repeat; r++)); do
    for extra in "${runs[@]}"; do
      # shellcheck disable=SC2086
      ./build/"$s" --csv "$out/$s.csv" $extra ${ARGS:-} >>"$out/logs/$s.log" 2>&1
      case $? in 0) ;; 77) verdict="SKIP (no usable GPU)" ;; *) verdict=FAIL; status=1 ;; esac
    done
  done
  echo "[$i/${#steps[@]}] $s: $verdict in $(( $(date +%s) - start )) s ($repeat run(s)) -> $out/$s.csv"
done
echo "bench_all: charts with: .venv/bin/python scripts/plot_results.py $out"
exit $status
