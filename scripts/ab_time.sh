#!/usr/bin/env bash
# An A/B timing of two builds of one step program, fair to both: the two binaries run alternately
# (A, B, A, B, ...) on the same GPU, so that clock and temperature drift fall on both, and each
# side's rows are the median of its rounds. For "did this change pay?": the lab notes' A/B rows.
#
# usage: scripts/ab_time.sh build REV DIR STEP [PATCH...]
#                                                   (on any machine: the step at git revision REV,
#                                                    with each PATCH applied in order, e.g. an
#                                                    experiment of a lab note; built into DIR/STEP;
#                                                    CUDA_ARCH as for make)
#        scripts/ab_time.sh run A_BINARY B_BINARY [MORE_BINARIES...] ROUNDS -- PROGRAM_ARGS...
#                                                   (on the GPU machine: ROUNDS alternating runs,
#                                                    A, B, C, ... in turn; up to 8 binaries)
#   e.g. scripts/ab_time.sh build HEAD~1 build-ab/old step3_w4a16
#        scripts/ab_time.sh build HEAD build-ab/x step3_w4a16 step3_w4a16/experiments/NAME.patch
#        scripts/ab_time.sh run build-ab/old/step3_w4a16 build/step3_w4a16 3 -- --m 1 --n 4096 --k 14336 --kernel gemv_mma_g128
# "build" uses a git worktree of REV (so it needs the repository's .git: build where you commit,
# then carry DIR to the GPU machine). "run" appends each side's --csv rows to LOG_DIR/a.csv,
# LOG_DIR/b.csv, ... (default LOG_DIR: build/logs/ab, emptied first) and prints
# scripts/compare_results.py A against each other side: its speed relative to A per kernel and case
# (1.10 = 10% faster than A), median of the rounds.
# Exit 0 when nothing is flagged, 1 when a row of another side is slower than A's by more than 5%
# or failed its check, 2 on bad usage, 77 without a GPU.
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "ab_time.sh: $1 (see scripts/ab_time.sh --help)"; exit 2; }

build_at() {
  [ $# -ge 3 ] || usage "build takes REV DIR STEP [PATCH...]"
  local rev=$1 dir=$2 step=$3 tree patch patches=()
  shift 3
  rev=$(git rev-parse --verify --quiet "$rev^{commit}") || usage "'$rev' is not a revision of this repository"  # resolved once: HEAD may move while it builds
  [ -f "$step/$step.cu" ] || usage "'$step' is not a step (no $step/$step.cu)"
  for patch in "$@"; do
    [ -f "$patch" ] || usage "there is no patch '$patch'"
    patches+=("$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")")
  done
  tree=$(mktemp -d)
  git worktree add --quiet --detach "$tree" "$rev" || exit 1
  for patch in ${patches[@]+"${patches[@]}"}; do
    if ! git -C "$tree" apply "$patch"; then
      git worktree remove --force "$tree"
      echo "ab_time.sh: $patch does not apply at $rev (with the patches before it); scripts/experiment.sh names where it does"; exit 1
    fi
  done
  mkdir -p "$dir"
  local status=0
  if cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DCUDA_ARCH="${CUDA_ARCH:-}" >"$dir/build.log" 2>&1 &&
     cmake --build "$tree/build" --target "$step" -j "$(nproc)" >>"$dir/build.log" 2>&1; then
    cp "$tree/build/$step" "$dir/$step"
    echo "built $dir/$step at $(git rev-parse --short "$rev")${patches[*]+ with ${patches[*]##*/}}"
  else
    tail -n 20 "$dir/build.log"; echo "ab_time.sh: the build at $rev failed (log: $dir/build.log)"; status=1
  fi
  git worktree remove --force "$tree"
  exit $status
}

run_ab() {
  local binaries=() rounds sides=(a b c d e f g h)
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do binaries+=("$1"); shift; done
  [ $# -ge 1 ] && [ ${#binaries[@]} -ge 3 ] || usage "run takes A_BINARY B_BINARY [MORE_BINARIES...] ROUNDS -- PROGRAM_ARGS..."
  shift
  rounds=${binaries[${#binaries[@]} - 1]}
  unset 'binaries[${#binaries[@]}-1]'
  local n=${#binaries[@]}
  [ "$n" -le ${#sides[@]} ] || usage "at most ${#sides[@]} binaries"
  for binary in "${binaries[@]}"; do [ -x "$binary" ] || usage "every binary must exist and be executable ('$binary')"; done
  [[ $rounds =~ ^[1-9][0-9]?$ ]] || usage "ROUNDS must be a whole number from 1 to 99, not '$rounds'"
  for arg in "$@"; do [ "$arg" = "--csv" ] && usage "the script passes --csv itself"; done
  if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "ab_time.sh: no GPU visible (nvidia-smi lists none); run it on a machine with an NVIDIA GPU"; exit 77
  fi
  local logs=${LOG_DIR:-build/logs/ab}
  mkdir -p "$logs" && for side in "${sides[@]}"; do rm -f "$logs/$side.csv"; done
  for ((i = 1; i <= rounds; i++)); do
    for ((k = 0; k < n; k++)); do
      local side=${sides[k]} binary=${binaries[k]}
      if ! "$binary" "$@" --csv "$logs/$side.csv" >"$logs/$side-$i.log" 2>&1; then
        echo "ab_time.sh: round $i, $side ($binary) exited with an error (log: $logs/$side-$i.log)"; tail -n 5 "$logs/$side-$i.log"
      fi
    done
    echo "round $i of $rounds done"
  done
  local status=0 code
  for ((k = 1; k < n; k++)); do
    echo "A = ${binaries[0]}, ${sides[k]^^} = ${binaries[k]}, median of $rounds rounds each:"
    python3 scripts/compare_results.py "$logs/a.csv" "$logs/${sides[k]}.csv"; code=$?
    [ $code -gt $status ] && status=$code
  done
  return $status
}

case "${1:-}" in
  build) shift; build_at "$@" ;;
  run) shift; run_ab "$@" ;;
  *) usage "say build or run" ;;
esac
