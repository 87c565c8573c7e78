#!/usr/bin/env bash
# One kernel of one step under Nsight Compute, summarised on one screen: time, achieved DRAM
# bandwidth, SM and tensor-pipe utilisation, occupancy, issue activity, shared-memory bank
# conflicts and the top warp stall reasons. For the lessons' "what limits this kernel".
#
# usage: scripts/profile.sh [--by-line] STEP KERNEL [ARGS...]
#        e.g. scripts/profile.sh step3_w4a16 mma_g128 --m 1 --n 4096 --k 14336
# --by-line: where the warps wait instead, by SASS line: the same launch's source page (Nsight
#        Compute's warp-state samples, --section SourceCounters) summed by scripts/stalls_by_line.py
#        (by reason, by opcode, and the lines with the most samples); the report and its CSV go to
#        build/profile/STEP-KERNEL-source.*.
# env:   NCU       the ncu binary (default: ncu on PATH, else the CUDA toolkit's)
#        FUNCTION  regex of the CUDA function to profile when it differs from KERNEL (gemv_g128 runs
#                  w4a16_gemv<GemvG128, 1>: FUNCTION=w4a16_gemv); default: KERNEL
# The program runs with --check-only --kernel KERNEL ARGS; the first launch of a matching function
# is profiled with --clock-control none (the GPU's own clocks, as in the timed runs). The full ncu
# report goes to build/profile/STEP-KERNEL.txt. Exit 77 without ncu or a GPU (one line), 2 on bad usage.
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
cd "$(dirname "$0")/.."
by_line=
if [ "${1:-}" = --by-line ]; then by_line=1; shift; fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/profile.sh [--by-line] STEP KERNEL [ARGS...]   (e.g. scripts/profile.sh step3_w4a16 mma_g128 --m 1 --n 4096 --k 14336)" >&2
  exit 2
fi
step=$1 kernel=$2
shift 2
ncu=${NCU:-$(command -v ncu 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")}
if [ ! -x "$ncu" ]; then
  echo "profile.sh: Nsight Compute not found ($ncu); it comes with the CUDA toolkit, or set NCU=/path/to/ncu"
  exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "profile.sh: no GPU visible; Nsight Compute profiles a kernel running on one"
  exit 77
fi
program=build/$step
if [ ! -x "$program" ]; then echo "profile.sh: no program $program (run make first)" >&2; exit 2; fi
if ! "$program" --list | awk -v k="$kernel" '$1 == k {found = 1} END {exit !found}'; then
  echo "profile.sh: $step has no kernel '$kernel' ($program --list shows them)" >&2; exit 2
fi

# The metrics we want, kept to the ones this ncu knows (names differ across versions and GPUs).
wanted=(gpu__time_duration.sum
        dram__throughput.avg.pct_of_peak_sustained_elapsed
        dram__bytes_read.sum.per_second
        sm__throughput.avg.pct_of_peak_sustained_elapsed
        sm__warps_active.avg.pct_of_peak_sustained_active
        smsp__issue_active.avg.pct_of_peak_sustained_active
        sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
        sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum)
known=$("$ncu" --query-metrics 2>/dev/null | awk '{print $1}')
metrics=""
for m in "${wanted[@]}"; do
  # a here-string, not a pipe: with pipefail, printf into grep -q fails on SIGPIPE when grep stops early
  if grep -qx "${m%%.*}" <<<"$known"; then metrics+="${metrics:+,}$m"; fi
done

mkdir -p build/profile
header() { echo "== $step --kernel $kernel $* | $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) | $(date -u '+%Y-%m-%d %H:%M UTC') | ncu --clock-control none =="; }
if [ -n "$by_line" ]; then
  source_report=build/profile/$step-$kernel-source
  "$ncu" --clock-control none --kernel-name "regex:${FUNCTION:-$kernel}" --launch-count 1 --section SourceCounters \
    --section WarpStateStats -f -o "$source_report" "$program" --check-only --kernel "$kernel" "$@" >"$source_report.txt" 2>&1
  if ! "$ncu" --import "$source_report.ncu-rep" --page source --csv --print-source sass >"$source_report.csv" 2>&1; then
    tail -n 5 "$source_report.txt"
    echo "profile.sh: no source page of a function matching '${FUNCTION:-$kernel}' (ncu's output: $source_report.txt)"
    exit 1
  fi
  header "$@"
  python3 scripts/stalls_by_line.py "$source_report.csv" --top 4 || exit 1
  echo "(the report: $source_report.ncu-rep; its source page: $source_report.csv)"
  exit 0
fi
report=build/profile/$step-$kernel.txt
# Each stall reason as warps stalled per issued instruction (what the WarpStateStats chart shows).
stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
"$ncu" --clock-control none --kernel-name "regex:${FUNCTION:-$kernel}" --launch-count 1 \
  --section WarpStateStats --metrics "${metrics:+$metrics,}$stalls" \
  "$program" --check-only --kernel "$kernel" "$@" >"$report" 2>&1
rc=$?
if grep -q "No kernels were profiled" "$report" || ! grep -q "gpu__time_duration\|Duration" "$report"; then
  tail -n 5 "$report"
  echo "profile.sh: no launch of a function matching '${FUNCTION:-$kernel}' was profiled; set FUNCTION (full report: $report)"
  exit 1
fi

header "$@"
# the profiled function and its launch shape: "  void name<...>(args) (grid)x(block), Context ..."
grep -E "\([0-9]+, [0-9]+, [0-9]+\)x\([0-9]+, [0-9]+, [0-9]+\)" "$report" | head -n 1 | sed -E 's/, Context.*//; s/^ */  /'
for m in "${wanted[@]}"; do grep -E "^ +${m//./\\.} " "$report" | sed 's/^ */  /'; done
grep -E "Warp Cycles Per Issued Instruction|Avg. Active Threads Per Warp" "$report" | sed 's/^ */  /'
echo "  top stall reasons (warps stalled per issued instruction; 'selected' is the issuing warp itself):"
grep -E "^ +smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio " "$report" |
  awk '{name = $1; sub(/^smsp__average_warps_issue_stalled_/, "", name); sub(/_per_issue_active\.ratio$/, "", name);
        if (name != "selected") printf "%s %s\n", $NF, name}' | sort -gr | head -n 4 | awk '{printf "    %-22s %s\n", $2, $1}'
echo "(full report: $report; the program exited $rc)"
