#!/usr/bin/env bash
# usage: ragged_tiles.sh SANITIZER TOOL SHAPES STEP PROGRAM KERNEL N K
# Runs KERNEL of PROGRAM (--check-only, so every output is checked) under compute-sanitizer's TOOL
# at each M that SHAPES (build/ragged_tile_shapes) names for STEP: every tile shape of the kernel
# with every class of ragged last token tile. Passes when every run passes and the tool reports
# nothing; exit 77 when there is no GPU.
set -u
sanitizer=$1 tool=$2 shapes=$3 step=$4 program=$5 kernel=$6 n=$7 k=$8
here=$(dirname "$0")
ms=$("$shapes" "$step" "$n" | awk '{print $1}') || { echo "FAIL: $shapes $step $n"; exit 1; }
[ -n "$ms" ] || { echo "FAIL: $shapes named no shape"; exit 1; }
failed=()
for m in $ms; do
  echo "== M=$m N=$n K=$k, $kernel under $tool"
  bash "$here/sanitize.sh" "$sanitizer" "$tool" "$program" --check-only --m "$m" --n "$n" --k "$k" --kernel "$kernel" --expect "$kernel"
  code=$?
  [ $code -eq 77 ] && exit 77
  [ $code -ne 0 ] && failed+=("$m")
done
if [ ${#failed[@]} -gt 0 ]; then echo "FAIL: M = ${failed[*]}"; exit 1; fi
echo "ok: $(wc -w <<<"$ms") shapes, M = $(echo $ms)"
