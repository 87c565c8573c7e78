#!/usr/bin/env bash
# usage: test_profile_script.sh SOURCE_DIR
# scripts/profile.sh where it cannot profile: bad usage exits 2; no ncu, or no GPU (a fake
# nvidia-smi that lists none, with a fake ncu), exits 77 with one line. And its summary, with a
# fake ncu that answers with a report recorded on the H200 (tests/fixtures/ncu_report_mma_int8.txt)
# and a metric list as long as a real one: every metric and the top stall reasons are kept, the
# program's own output is not taken for the kernel's line.
set -u
src=$1
# shellcheck source=no_gpu.sh
source "$(dirname "$0")/no_gpu.sh"
failures=0
check() {  # check EXPECTED_RC EXPECTED_TEXT WHAT COMMAND...
  local want=$1 text=$2 what=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -ne "$want" ] || ! printf '%s\n' "$out" | grep -q "$text"; then
    echo "FAILED: $what: exit $rc (want $want): $out"; failures=1
  else
    echo "ok: $what: $out"
  fi
}
check 2 "usage:" "no arguments" bash "$src/scripts/profile.sh"
check 77 "Nsight Compute not found" "no ncu" env NCU="$work/no-ncu" bash "$src/scripts/profile.sh" step3_w4a16 mma_g128
printf '#!/bin/sh\necho fake ncu\n' >"$work/bin/ncu"
chmod +x "$work/bin/ncu"
check 77 "no GPU visible" "no GPU" env PATH="$work/bin:$PATH" NCU="$work/bin/ncu" bash "$src/scripts/profile.sh" step3_w4a16 mma_g128

# The summary, in a scratch tree: the script, a fake program, a fake GPU, a fake ncu.
tree=$work/tree
mkdir -p "$tree/scripts" "$tree/build" "$work/gpu"
cp "$src/scripts/profile.sh" "$tree/scripts/"
printf '#!/bin/sh\necho "mma_int8                 09 int8 tensor cores"\n' >"$tree/build/step4_w4a8"
printf '#!/bin/sh\necho "NVIDIA H200"\n' >"$work/gpu/nvidia-smi"
cat >"$work/gpu/ncu" <<FAKE
#!/bin/sh
if [ "\$1" = --query-metrics ]; then  # wanted names first, then thousands more, as a real list
  for m in gpu__time_duration dram__bytes_read smsp__issue_active sm__pipe_tensor_op_imma_cycles_active; do echo "\$m  a counter"; done
  seq 1 20000 | sed 's/^/filler__metric_/'
  exit 0
fi
# The report, less the metric lines that were not asked for with --metrics.
asked=""
while [ \$# -gt 0 ]; do [ "\$1" = --metrics ] && asked=\$2; shift; done
awk -v asked=",\$asked," '/^    [a-z0-9_]+__[a-z0-9_.]+ / {
    name = \$1; keep = index(asked, "," name ",") > 0
    if (name ~ /^smsp__average_warps_issue_stalled_/ && index(asked, "regex:smsp__average_warps_issue_stalled_")) keep = 1
    if (!keep) next
  } { print }' "$src/tests/fixtures/ncu_report_mma_int8.txt"
FAKE
chmod +x "$tree/build/step4_w4a8" "$work/gpu/nvidia-smi" "$work/gpu/ncu"
out=$(PATH="$work/gpu:$PATH" NCU="$work/gpu/ncu" bash "$tree/scripts/profile.sh" step4_w4a8 mma_int8 --m 512 2>&1)
expect() {  # expect WHAT REGEX: the last output, $out, has a line matching REGEX
  if printf '%s\n' "$out" | grep -qE "$2"; then echo "ok: $1"; else echo "FAILED: $1 (no /$2/)"; failures=1; fi
}
expect "summary: the kernel's line" "^  void w4a8_mma_int8<Config<2, 2, 1, 2, 8, 4, 2>>\(W4A8Args\) \(64, 4, 1\)x\(128, 1, 1\)$"
expect "summary: the time" "gpu__time_duration.sum +us +72.61"
expect "summary: DRAM, early in the metric list" "dram__bytes_read.sum.per_second"
expect "summary: the tensor pipe" "sm__pipe_tensor_op_imma_cycles_active.*19.40"
expect "summary: the top stall first" "^    not_selected +0.53$"
expect "summary: the second stall" "^    wait +0.51$"
if printf '%s\n' "$out" | grep -q "one block:"; then echo "FAILED: summary: the program's output taken for the kernel's line"; failures=1; fi
[ $failures -eq 0 ] || printf '%s\n' "$out"

# --by-line: a fake ncu that writes the report where -o says and, asked for its source page, answers
# with rung 09's (tests/fixtures/ncu_source_gemv_tma_g128_m1.csv); then the same with no source page.
cp "$src/scripts/stalls_by_line.py" "$tree/scripts/"
printf '#!/bin/sh\necho "gemv_tma_g128            09 the same for group-128 INT4"\n' >"$tree/build/step3_w4a16"
chmod +x "$tree/build/step3_w4a16"
cat >"$work/gpu/ncu" <<FAKE
#!/bin/sh
case " \$* " in
  *" --import "*) [ -n "\$NO_SOURCE" ] && { echo "==ERROR== no source"; exit 1; }; cat "$src/tests/fixtures/ncu_source_gemv_tma_g128_m1.csv" ;;
  *) while [ \$# -gt 0 ]; do [ "\$1" = -o ] && : >"\$2.ncu-rep"; shift; done ;;
esac
FAKE
out=$(PATH="$work/gpu:$PATH" NCU="$work/gpu/ncu" FUNCTION=gemv_tma_kernel bash "$tree/scripts/profile.sh" --by-line step3_w4a16 gemv_tma_g128 --m 1 2>&1)
expect "by line: its header" "^== step3_w4a16 --kernel gemv_tma_g128 --m 1 \\| NVIDIA H200 \\|"
expect "by line: the sums by opcode" "^  BRA +87.4% +8.0%"
expect "by line: the top line" "^-- 46.8% of the samples at \\+0x0220"
[ -f "$tree/build/profile/step3_w4a16-gemv_tma_g128-source.csv" ] && echo "ok: by line: the CSV kept" || { echo "FAILED: by line: no CSV"; failures=1; }
check 1 "no source page" "no source page" env PATH="$work/gpu:$PATH" NCU="$work/gpu/ncu" NO_SOURCE=1 bash "$tree/scripts/profile.sh" --by-line step3_w4a16 gemv_tma_g128
check 2 "usage:" "--by-line alone" bash "$src/scripts/profile.sh" --by-line
exit $failures
