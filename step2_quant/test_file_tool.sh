#!/usr/bin/env bash
# usage: test_file_tool.sh STEP2_BINARY GOLDEN_DIR
# The file tool end to end: quantize golden inputs and compare with ggml's bytes (cmp), dequantize
# ggml's blocks and compare with ggml's floats, and refuse bad files with exit 2.
set -u
bin=$1
golden=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

for case in normal_s1 q4_rounding_ties zero_blocks nibble_order; do
  for fmt in q4_0 q8_0 q8_1; do
    "$bin" --quantize $fmt --in "$golden/$case/x.f32" --out "$work/q.bin" >/dev/null &&
      cmp -s "$work/q.bin" "$golden/$case/$fmt.bin" && pass "quantize $fmt $case" || fail "quantize $fmt $case"
  done
  "$bin" --quantize q8_1 --q8_1-s sum_x --in "$golden/$case/x.f32" --out "$work/q.bin" >/dev/null &&
    cmp -s "$work/q.bin" "$golden/$case/q8_1_cudaemu.bin" && pass "quantize q8_1 sum_x $case" || fail "quantize q8_1 sum_x $case"
  for fmt in q4_0 q8_0; do
    "$bin" --dequantize $fmt --in "$golden/$case/$fmt.bin" --out "$work/y.f32" >/dev/null &&
      cmp -s "$work/y.f32" "$golden/$case/deq_$fmt.f32" && pass "dequantize $fmt $case" || fail "dequantize $fmt $case"
  done
done

# The K-quants (ggml's blocks of 256, common/golden_kquants/): bytes and floats as ggml wrote them.
kgolden=$golden/../golden_kquants
for case in normal saturating_scale zero_and_constant; do
  for fmt in q4_k q6_k; do
    "$bin" --quantize $fmt --in "$kgolden/$case/x.f32" --out "$work/q.bin" >/dev/null &&
      cmp -s "$work/q.bin" "$kgolden/$case/$fmt.bin" && pass "quantize $fmt $case" || fail "quantize $fmt $case"
    "$bin" --dequantize $fmt --in "$kgolden/$case/$fmt.bin" --out "$work/y.f32" >/dev/null &&
      cmp -s "$work/y.f32" "$kgolden/$case/deq_$fmt.f32" && pass "dequantize $fmt $case" || fail "dequantize $fmt $case"
  done
done

expect_usage_error() {  # description, then the command
  local what=$1
  shift
  "$@" >/dev/null 2>"$work/err"
  local code=$?
  if [ $code -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]; then pass "$what -> exit 2: $(cat "$work/err")"; else fail "$what (exit $code)"; fi
}
head -c 132 "$golden/normal_s1/x.f32" >"$work/33values.f32"
expect_usage_error "33 values" "$bin" --quantize q4_0 --in "$work/33values.f32" --out "$work/q.bin"
head -c 130 "$golden/normal_s1/x.f32" >"$work/ragged.f32"
expect_usage_error "partial float" "$bin" --quantize q8_0 --in "$work/ragged.f32" --out "$work/q.bin"
{ head -c 64 "$golden/normal_s1/x.f32"; printf '\x00\x00\xc0\x7f'; head -c 60 "$golden/normal_s1/x.f32"; } >"$work/nan.f32"
expect_usage_error "NaN input" "$bin" --quantize q4_0 --in "$work/nan.f32" --out "$work/q.bin"
head -c 2048 "$golden/normal_s1/x.f32" >"$work/512values.f32"
head -c 1152 "$golden/normal_s1/x.f32" >"$work/288values.f32"
expect_usage_error "288 values for q4_k (super-blocks of 256)" "$bin" --quantize q4_k --in "$work/288values.f32" --out "$work/q.bin"
expect_usage_error "--q8_1-s with q6_k" "$bin" --quantize q6_k --q8_1-s sum_x --in "$work/512values.f32" --out "$work/q.bin"
head -c 200 "$kgolden/normal/q4_k.bin" >"$work/truncated_k.bin"
expect_usage_error "truncated q4_k blocks" "$bin" --dequantize q4_k --in "$work/truncated_k.bin" --out "$work/y.f32"
head -c 100 "$golden/normal_s1/q4_0.bin" >"$work/truncated.bin"
expect_usage_error "truncated blocks" "$bin" --dequantize q4_0 --in "$work/truncated.bin" --out "$work/y.f32"
{ printf '\x00\x7e'; head -c 18 "$golden/normal_s1/q4_0.bin" | tail -c 16; } >"$work/nan_scale.bin"  # d = fp16 NaN
expect_usage_error "a block whose scale is NaN" "$bin" --dequantize q4_0 --in "$work/nan_scale.bin" --out "$work/y.f32"

# A write that fails (here a 1 KiB file size limit, for a 16 KiB output) leaves no output file,
# whole or partial: the tool writes OUT.partial and renames it only once it is complete.
rm -f "$work/big.f32" "$work/big.f32.partial"
(ulimit -f 1; "$bin" --dequantize q8_0 --in "$golden/normal_s1/q8_0.bin" --out "$work/big.f32") >/dev/null 2>"$work/err"
code=$?
if [ $code -eq 2 ] && [ ! -e "$work/big.f32" ] && [ ! -e "$work/big.f32.partial" ]; then pass "a failed write -> exit 2, no file: $(cat "$work/err")"
else fail "a failed write (exit $code; $(ls "$work" | grep big | paste -sd' ') left)"; fi
for f in "$work"/*.partial; do [ -e "$f" ] && fail "left behind: $f"; done

[ $failures -eq 0 ] && echo "file tool: all checks passed" || echo "file tool: $failures checks failed"
exit $((failures != 0))
