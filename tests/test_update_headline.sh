#!/usr/bin/env bash
# usage: test_update_headline.sh SOURCE_DIR
# scripts/update_headline.py on the committed H200 results, writing into a copy of README.md: the
# block is filled with one row per lesson case of each step, and the real README is untouched. A
# README without the block is refused (exit 1).
set -u
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
cp "$src/README.md" "$work/README.md"
before=$(md5sum <"$src/README.md")
python3 "$src/scripts/update_headline.py" "$src/results/NVIDIA_H200" "$work/README.md" >/dev/null || { echo "FAILED: exit $?"; failures=1; }
block=$(sed -n '/<!-- headline:NVIDIA_H200 -->/,/<!-- \/headline -->/p' "$work/README.md")
for step in step1_fp32 step2_quant step3_w4a16 step4_w4a8; do
  printf '%s\n' "$block" | grep -q "^| $step |" || { echo "FAILED: no row for $step"; failures=1; }
done
printf '%s\n' "$block" | grep -q "sweep" && { echo "FAILED: sweep cases are not lesson cases"; failures=1; }
[ "$(md5sum <"$src/README.md")" = "$before" ] || { echo "FAILED: the real README changed"; failures=1; }
# A step's block: that step's rows only, under its own line of run_info.txt.
cp "$src/step4_w4a8/README.md" "$work/step4.md"
python3 "$src/scripts/update_headline.py" "$src/results/NVIDIA_H200" "$work/step4.md" >/dev/null || { echo "FAILED: step block, exit $?"; failures=1; }
step_block=$(sed -n '/<!-- headline:NVIDIA_H200 step4_w4a8 -->/,/<!-- \/headline -->/p' "$work/step4.md")
printf '%s\n' "$step_block" | grep -q "^| step4_w4a8 |" || { echo "FAILED: the step block has no row of its step"; failures=1; }
printf '%s\n' "$step_block" | grep -q "^| step[1-3]" && { echo "FAILED: the step block has another step's rows"; failures=1; }
printf '%s\n' "$step_block" | grep -q "(step 4: GPU" || { echo "FAILED: the step block does not name its step's run"; failures=1; }
printf '%s\n' "$step_block" | grep -q "step 3: GPU" && { echo "FAILED: the step block names another step's run"; failures=1; }
printf 'no block here\n' >"$work/plain.md"
python3 "$src/scripts/update_headline.py" "$src/results/NVIDIA_H200" "$work/plain.md" >/dev/null && { echo "FAILED: a README without the block was accepted"; failures=1; }
[ $failures -eq 0 ] && echo "ok: headline table generated ($(printf '%s\n' "$block" | grep -c '^| step') rows)"
exit $failures
