#!/usr/bin/env bash
# usage: test_corrupted_golden.sh PROGRAM GOLDEN_CASE_DIR
# A check counts only if it can fail: copies of one golden case with one thing changed must be
# rejected (exit 1) by levels 2 and 3 on the CPU, and the untouched copy accepted (exit 0).
set -u
program=$1 case_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect CODE WHAT DIR
  "$program" --cpu-only --golden "$3" >"$work/out.log" 2>&1
  local rc=$?
  if [ $rc -ne "$1" ]; then echo "FAILED: $2: exit $rc, expected $1"; tail -n 15 "$work/out.log"; failures=1
  else echo "ok: $2: exit $rc"; fi
}
copy() { rm -rf "$work/case"; cp -r "$case_dir" "$work/case"; chmod -R u+w "$work/case"; }
flip_byte() {  # flip_byte FILE OFFSET
  python3 -c "import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); b[o] ^= 0x01; open(p, 'wb').write(b)" "$1" "$2"
}
copy; expect 0 "the untouched case" "$work/case"
copy; flip_byte "$work/case/q4_0.bin" 7; expect 1 "one bit of one nibble byte in q4_0.bin" "$work/case"
copy; flip_byte "$work/case/q8_1_cudaemu.bin" 2; expect 1 "one bit of one s in q8_1_cudaemu.bin" "$work/case"
copy; flip_byte "$work/case/dots.f64" 0; expect 1 "the last bit of one recorded dot product (v0)" "$work/case"
exit $failures
