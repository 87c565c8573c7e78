#!/usr/bin/env bash
# usage: test_update_targets.sh SOURCE_DIR
# scripts/update_targets.py on the committed H200 results, writing into copies of the step READMEs:
# every goal of scripts/targets.txt gets a row with a status, the real READMEs are untouched, a
# faster planted time turns a missed goal into met (time and ratio goals both), and a README
# without the block is refused (exit 1). Repeated runs count as their median, and a failed run
# fails its kernel.
set -u
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=1; }
block() { awk '/<!-- targets:res -->/{p=1} p; /<!-- \/targets -->/{p=0}' "$1"; }
mkdir -p "$work/res"
for step in step3_w4a16 step4_w4a8; do
  mkdir -p "$work/$step"
  sed 's/<!-- targets:NVIDIA_H200 -->/<!-- targets:res -->/' "$src/$step/README.md" >"$work/$step/README.md"
  cp "$src/results/NVIDIA_H200/$step.csv" "$work/res/"
done
# Chapters beside a README show the goals that name them (step4_w4a8/TENSOR_CORES.md | ...).
chapters="step4_w4a8/TENSOR_CORES.md step4_w4a8/KQUANTS.md"
for doc in $chapters; do sed 's/<!-- targets:NVIDIA_H200 -->/<!-- targets:res -->/' "$src/$doc" >"$work/$doc"; done
lessons() { for f in step3_w4a16/README.md step4_w4a8/README.md $chapters; do echo "$1/$f"; done; }
before=$(cat $(lessons "$src") | md5sum)
run() { python3 "$src/scripts/update_targets.py" "$work/res" $(lessons "$work") >/dev/null; }
run || fail "exit $? on the committed results"
for doc in step3_w4a16 step4_w4a8 $chapters; do
  file=$doc; [[ $doc == */* ]] || file=$doc/README.md
  want=$(grep -c "^$doc |" "$src/scripts/targets.txt")
  got=$(block "$work/$file" | grep -cE '\| (met|met within noise|missed) \|$')
  [ "$want" -gt 0 ] && [ "$got" -eq "$want" ] || fail "$file: $got rows with a status, targets.txt has $want goals for it"
done
[ "$(cat $(lessons "$src") | md5sum)" = "$before" ] || fail "a real lesson file changed"
# Plant: M=4 decoding at 13 us (goal <= 14 us), and HGEMM at M=512 slow enough for 0.7x.
status_of() { block "$work/$1/README.md" | grep -F "$2" | grep -oE '\| (met|met within noise|missed) \|$' | sed 's/^| //'; }
awk -F, -v OFS=, '$2 ~ /^decode; 4 tokens/ && $3 == "gemv_mma" {$7 = "0.013"} 1' "$src/results/NVIDIA_H200/step4_w4a8.csv" >"$work/res/step4_w4a8.csv"
awk -F, -v OFS=, '$2 ~ /^prompt/ && $3 == "cublas_hgemm" {$7 = "1.0"} 1' "$src/results/NVIDIA_H200/step3_w4a16.csv" >"$work/res/step3_w4a16.csv"
run || fail "exit $? on the planted results"
[ "$(status_of step4_w4a8 '≤ 14 µs')" = "met |" ] || fail "M=4 at 13 us is not 'met' for ≤ 14 µs"
[ "$(status_of step3_w4a16 '0.7x')" = "met |" ] || fail "a 1 ms HGEMM does not meet 0.7x"
# A goal met by less than 2% is "met within noise": M=1 decoding at 9.9 us for <= 10 us.
awk -F, -v OFS=, '$2 ~ /^decode; 1 token/ && $3 == "gemv_resident" {$7 = "0.0099"} 1' "$src/results/NVIDIA_H200/step4_w4a8.csv" >"$work/res/step4_w4a8.csv"
awk -F, -v OFS=, '$2 ~ /^decode; 1 token/ {if ($3 != "gemv_resident" && $7 + 0 > 0 && $7 + 0 < 0.0099) $7 = "0.02"} 1' "$work/res/step4_w4a8.csv" >"$work/res/x.csv" && mv "$work/res/x.csv" "$work/res/step4_w4a8.csv"
run || fail "exit $? on the planted results"
[ "$(status_of step4_w4a8 '≤ 10 µs')" = "met within noise |" ] || fail "M=1 at 9.9 us is not 'met within noise' for ≤ 10 µs: $(status_of step4_w4a8 '≤ 10 µs')"
# Repeated runs in one CSV (bench_all.sh REPEAT=3): the goal is judged on the median run, never the
# best one, and a run that failed fails the kernel. M=4's gemv_mma at 13, 15.5 and 16 us: missed.
# repeat_m4 T1 T2 T3: the CSV with three runs of M=4's gemv_mma at those times ("FAIL": a failed run),
# every other kernel of that case made slower than 20 us (so that gemv_mma is the one judged).
repeat_m4() {
  awk -F, -v OFS=, -v runs="$*" '$2 ~ /^decode; 4 tokens/ && $3 == "gemv_mma" {
      n = split(runs, t, " "); for (i = 1; i <= n; i++) { if (t[i] == "FAIL") { $13 = "FAIL" } else { $7 = t[i]; $13 = "PASS" } print }
      next }
    $2 ~ /^decode; 4 tokens/ && $7 + 0 > 0 && $7 + 0 < 0.02 { $7 = "0.02" } 1' "$src/results/NVIDIA_H200/step4_w4a8.csv" >"$work/res/step4_w4a8.csv"
}
repeat_m4 0.013 0.0155 0.016
run || fail "exit $? on repeated runs"
[ "$(status_of step4_w4a8 '≤ 14 µs')" = "missed |" ] || fail "runs of 13, 15.5, 16 us met ≤ 14 µs: the best run was judged, not the median"
block "$work/step4_w4a8/README.md" | grep -F '≤ 14 µs' | grep -qF '15.5 µs (median of 3 runs)' || fail "the median and its run count are not shown"
repeat_m4 0.013 0.012 0.0135
run || fail "exit $? on repeated runs"
[ "$(status_of step4_w4a8 '≤ 14 µs')" = "met |" ] || fail "runs of 12, 13, 13.5 us did not meet ≤ 14 µs"
repeat_m4 0.012 FAIL 0.012
run || fail "exit $? on repeated runs"
block "$work/step4_w4a8/README.md" | grep -F '≤ 14 µs' | grep -q 'gemv_mma' && fail "a kernel with a failed run still stands for the goal"
printf 'no block here\n' >"$work/step4_w4a8/README.md"
run && fail "a README without the block was accepted"
[ $failures -eq 0 ] && echo "ok: goals tabled, statuses follow the numbers"
exit $failures
