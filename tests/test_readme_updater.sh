#!/usr/bin/env bash
# usage: test_readme_updater.sh SOURCE_DIR
# scripts/update_readme_results.py must refuse logs that do not show a passing GPU run, and then
# leave every README untouched.
set -u
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
good_info="GPU: NVIDIA H200, 9.0, 580 | CUDA 13.0 | built for 90 | 2026-11-30 00:00 UTC"
good_log="GPU      NVIDIA H200 | sm_90
  naive  0.1  PASS
ALL CHECKS PASSED"
refuse() {  # description, run_info line, the line planted in step1's log
  mkdir -p "$work/$1"
  echo "$2" >"$work/$1/run_info.txt"
  for step in step1_fp32 step2_quant; do printf '%s\n' "$good_log" >"$work/$1/$step.log"; done
  printf '%s\n' "$3" >>"$work/$1/step1_fp32.log"
  before=$(cat "$src"/*/*.md | md5sum)
  if python3 "$src/scripts/update_readme_results.py" "$work/$1" >"$work/$1/out" 2>&1; then
    echo "FAIL: $1 was accepted"; failures=$((failures + 1))
  elif [ "$(cat "$src"/*/*.md | md5sum)" != "$before" ]; then
    echo "FAIL: $1 was refused but a README changed"; failures=$((failures + 1))
  else
    echo "ok: $1 refused: $(tail -n 1 "$work/$1/out")"
  fi
}
refuse no_gpu_info "GPU: none visible | CUDA 13.0 | built for 75 | now" ""
refuse no_device "$good_info" "SKIP step1_fp32: no usable CUDA device; the options were valid, no kernel ran"
refuse arch_skip "$good_info" "SKIP double_buffered: needs sm_90a code, this build runs sm_90 code here"
refuse failed_check "$good_info" "  naive  0.1  FAIL"
refuse failed_run "$good_info" "SOME CHECKS FAILED"

# Accepted: a passing log fills its block, and a profile block is labelled with the script that
# printed it. Run on a scratch copy of the tree, so no real README changes.
mkdir -p "$work/tree/scripts" "$work/tree/stepx" "$work/ok"
cp "$src/scripts/update_readme_results.py" "$work/tree/scripts/"
printf '# x\n<!-- results:step1_fp32 -->\nold\n<!-- /results -->\n<!-- results:profile--step1_fp32--naive--m1 -->\nold\n<!-- /results -->\n<!-- results:stalls--step1_fp32--naive--m1 -->\nold\n<!-- /results -->\n<!-- results:step1_fp32--sweep--summary -->\nold\n<!-- /results -->\n' \
  >"$work/tree/stepx/README.md"
# A chapter beside a README (step4_w4a8/TENSOR_CORES.md) has its blocks filled too.
printf '# a chapter\n<!-- results:step1_fp32 -->\nold\n<!-- /results -->\n' >"$work/tree/stepx/CHAPTER.md"
# A copy of the sources in an ignored build tree (build-*/) keeps its README as it is.
mkdir -p "$work/tree/build-copy/stepx"
printf '# x\n<!-- results:step1_fp32 -->\nold\n<!-- /results -->\n' >"$work/tree/build-copy/stepx/README.md"
echo "$good_info" >"$work/ok/run_info.txt"
printf '%s\n' "$good_log" >"$work/ok/step1_fp32.log"
printf '== step1_fp32 --kernel naive | ncu ==\n  gpu__time_duration.sum  us  1.0\n' >"$work/ok/profile--step1_fp32--naive--m1.log"
printf '== step1_fp32 --kernel naive | ncu ==\n  BRA  40.0%%  3.0%%  long_sb 35.0\n' >"$work/ok/stalls--step1_fp32--naive--m1.log"
# A summary block holds the run's last table only: from its last "== the" line on.
printf '== case 1 ==\n  a case table row\n== the sweep: ours ==\n  M  ours\n  1  1.0\n\nALL CHECKS PASSED\n' >"$work/ok/step1_fp32--sweep.log"
if python3 "$work/tree/scripts/update_readme_results.py" "$work/ok" >/dev/null 2>&1 &&
   grep -q 'Printed by `build/step1_fp32`' "$work/tree/stepx/README.md" &&
   grep -q 'Printed by `scripts/profile.sh`' "$work/tree/stepx/README.md" &&
   grep -q 'Printed by `scripts/profile.sh --by-line`' "$work/tree/stepx/README.md" && grep -q 'long_sb 35.0' "$work/tree/stepx/README.md" &&
   grep -q 'gpu__time_duration' "$work/tree/stepx/README.md" && ! grep -q '^old$' "$work/tree/stepx/README.md" &&
   grep -q 'The table at the end of what `build/step1_fp32 --sweep` printed' "$work/tree/stepx/README.md" &&
   grep -q '^== the sweep: ours ==$' "$work/tree/stepx/README.md" && ! grep -q 'a case table row' "$work/tree/stepx/README.md" &&
   grep -q 'Printed by `build/step1_fp32`' "$work/tree/stepx/CHAPTER.md" &&
   grep -q '^old$' "$work/tree/build-copy/stepx/README.md"; then
  echo "ok: a passing run fills its blocks, in chapters, profile, stalls and summary blocks too, and leaves build trees alone"
else
  echo "FAIL: the blocks were not filled as expected"; cat "$work/tree/stepx/README.md"; failures=$((failures + 1))
fi
exit $((failures != 0))
