#!/usr/bin/env bash
# One GPU call for the kernels you are working on: build only their step, run the tests that
# concern them, time them beside the step's cuBLAS baselines, profile the first, and print a short
# table last. Made for a lease of minutes: scripts/build_and_test.sh checks everything (about nine
# minutes on the H200); this checks what you changed, as a developer's loop.
#
# usage: scripts/kernel_check.sh STEP KERNEL[,KERNEL...] [MxNxK ...]
#        e.g. scripts/kernel_check.sh step3_w4a16 wgmma_g128,mma_g128 512x4096x4096 128x4096x14336
# env:   LOG_DIR   where the logs go (default: build/logs/kernel_check)
#        CUDA_ARCH build for this architecture instead of the detected one
#        PROFILE   0: no Nsight Compute profile (default 1: the first kernel at the first shape)
# What runs, in order:
#   1. the build of STEP and of the test programs (CMake, the same flags as make);
#   2. the tests of STEP that concern the kernels (scripts/tests_for_kernels.py): its shape, lesson
#      and canary tests, its sanitizer tests, and every test whose command names one of them;
#   3. each shape with --kernel KERNELS plus the step's cuBLAS baselines (no shape: the lesson's
#      cases), timed as the lessons time (cold L2, median);
#   4. scripts/profile.sh on the first kernel at the first shape, when Nsight Compute is there.
# Exit 0 when everything passed, 1 when something failed, 2 on bad usage, 77 without a GPU.
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "kernel_check.sh: $1 (usage: scripts/kernel_check.sh STEP KERNEL[,KERNEL...] [MxNxK ...])"; exit 2; }
[ $# -ge 2 ] || usage "name a step and at least one kernel"
step=$1 kernels=$2
shift 2
[ -f "$step/$step.cu" ] || usage "there is no step '$step' (the steps: $(ls -d step*_*/ | tr -d / | tr '\n' ' '))"
[[ $kernels =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] || usage "kernels are names separated by commas, not '$kernels'"
for shape in "$@"; do
  [[ $shape =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*$ ]] || usage "a shape is MxNxK (512x4096x4096), not '$shape'"
done
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "kernel_check.sh: no GPU visible (nvidia-smi lists none); run it on a machine with an NVIDIA GPU"
  exit 77
fi

log=${LOG_DIR:-build/logs/kernel_check}
mkdir -p "$log"
program=build/$step
prefix=${step%%_*}
status=0

# 1. The build: the step and the programs its tests run.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDA_ARCH="${CUDA_ARCH:-}" >"$log/build.log" 2>&1 &&
  cmake --build build -j "$(nproc)" --target "$step" $(sed -n 's/^add_executable(\([a-z_0-9]*\) .*/\1/p' "$step/tests.cmake" 2>/dev/null) \
    ragged_tile_shapes >>"$log/build.log" 2>&1 || { tail -n 20 "$log/build.log"; echo "kernel_check.sh: BUILD FAILED ($log/build.log)"; exit 1; }
arch=$(sed -n 's/.*architectures \(.*\)$/\1/p' "$log/build.log" | tail -n 1)
listed=$("$program" --list | awk '{print $1}')
for k in ${kernels//,/ }; do
  grep -qx "$k" <<<"$listed" || usage "$step has no kernel '$k' ($program --list shows them)"
done
baselines=$(grep '^cublas_' <<<"$listed" | paste -sd, -)
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) | built for $arch | $(date -u '+%Y-%m-%d %H:%M UTC')" | tee "$log/run_info.txt"

# 2. The tests that concern these kernels, chosen from ctest's own list of tests and commands.
regex=$(python3 scripts/tests_for_kernels.py build "$step" "$kernels") || status=1
if [ -n "$regex" ]; then
  (cd build && ctest -R "$regex" --output-on-failure) >"$log/ctest.log" 2>&1 || status=1
  tests_line=$(grep -E "tests passed|tests failed" "$log/ctest.log" | tail -n 1)
else
  tests_line="no test names these kernels"
fi

# 3. Timing, beside the baselines.
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(lesson)
for shape in "${runs[@]}"; do
  args=()
  [ "$shape" = lesson ] || { IFS=x read -r m n k <<<"$shape"; args=(--m "$m" --n "$n" --k "$k"); }
  "$program" "${args[@]}" --kernel "$kernels${baselines:+,$baselines}" >"$log/time-$shape.log" 2>&1 || status=1
done

# 4. The profile of the first kernel at the first shape.
first=${kernels%%,*}
if [ "${PROFILE:-1}" != 0 ]; then
  pargs=()
  [ "${runs[0]}" = lesson ] || { IFS=x read -r m n k <<<"${runs[0]}"; pargs=(--m "$m" --n "$n" --k "$k"); }
  scripts/profile.sh "$step" "$first" "${pargs[@]}" >"$log/profile-$first.log" 2>&1 || rm -f "$log/profile-$first.log"
fi

echo
echo "tests: $tests_line   (logs: $log)"
[ -f "$log/profile-$first.log" ] && grep -E "gpu__time|tensor_op_[hi]mma|issue_active|^    [a-z_]+ +[0-9.]+$" "$log/profile-$first.log"
for shape in "${runs[@]}"; do
  awk -v shape="$shape" -v want="${kernels//,/ } ${baselines//,/ }" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; ++i) keep[w[i]] = 1 }
    /^== / { case_name = $0; sub(/^== /, "", case_name); sub(/ ==$/, "", case_name) }
    /^  [a-z0-9_]+ / && ($1 in keep) {
      verdict = match($0, /(PASS|FAIL|SKIP)/) ? substr($0, RSTART, RLENGTH) : "?"
      printf "%-44.44s %-20s %10s %14s %s\n", (shape == "lesson" ? case_name : shape), $1, $2, $4 " " $5, verdict }' "$log/time-$shape.log"
done
exit $status
