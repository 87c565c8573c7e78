#!/usr/bin/env bash
# usage: test_sass_mix.sh SOURCE_DIR
# scripts/sass_mix.py on a disassembly saved from the H200 machine (tests/fixtures/
# sass_step4_naive_dp4a.txt: step 4's naive and dp4a kernels, cuobjdump -sass, CUDA 13.0, sm_90),
# through a fake cuobjdump: the main loop and its counts; bad usage exits 2; no cuobjdump, 77.
set -u
src=$1
# shellcheck source=script_checks.sh
source "$(dirname "$0")/script_checks.sh"
fixture=$src/tests/fixtures/sass_step4_naive_dp4a.txt
tree=$work/tree
mkdir -p "$tree/scripts" "$tree/build" "$work/bin"
cp "$src/scripts/sass_mix.py" "$tree/scripts/"
: >"$tree/build/step4_w4a8"
printf '#!/bin/sh\ncat "%s"\n' "$fixture" >"$work/bin/cuobjdump"
chmod +x "$work/bin/cuobjdump"
run() { CUOBJDUMP="$work/bin/cuobjdump" python3 "$tree/scripts/sass_mix.py" "$@" 2>&1; }
out=$(run step4_w4a8 'w4a8_dp4a(')
expect "dp4a: the kernel" "$out" "^== step4_w4a8: w4a8_dp4a\(W4A8Args\) \| cuobjdump -sass build/step4_w4a8 ==$"
expect "dp4a: its loop" "$out" "^  main loop: 107 instructions \(0x260-0x900\), 16 IDP: 6.7 instructions per IDP$"
expect "dp4a: the loads" "$out" "^  LDG +36 +2.25$"
out=$(run step4_w4a8 'w4a8_naive (' --per FFMA)  # spaces in FUNCTION are ignored
expect "naive, per FFMA" "$out" "^  main loop: 143 instructions .*, 2 FFMA: 71.5 instructions per FFMA$"
expect "naive: the compiler's own DP4A" "$out" "^  IDP +4 +2.00$"
# Nested loops (a made-up kernel): the longest loop holds the inner one; --innermost takes the inner.
printf '%s\n' 'code for sm_90' '        Function : nested' \
  '        /*0000*/                   MOV R1, c[0x0][0x28] ;' \
  '        /*0010*/                   IMAD R2, R1, R1, RZ ;' \
  '        /*0020*/                   HMMA.16816.F32 R4, R8, R12, R4 ;' \
  '        /*0030*/                   LOP3.LUT R2, R2, 0xf, RZ, 0xc0, !PT ;' \
  '        /*0040*/              @P0 BRA `(.L_x_1) ;' \
  '        /*0050*/                   STS [R1], R4 ;' \
  '        /*0060*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;' \
  '        /*0070*/                   LDS R5, [R1] ;' \
  '        /*0080*/              @P1 BRA 0x10 ;' \
  '        /*0090*/                   EXIT ;' >"$work/nested.sass"
sed -i 's/`(.L_x_1)/0x20/' "$work/nested.sass"
out=$(python3 "$tree/scripts/sass_mix.py" stepx nested --sass "$work/nested.sass" 2>&1)
expect "nested: the longest loop holds the other" "$out" "^  main loop: 8 instructions \(0x10-0x80\), 1 HMMA: 8.0 instructions per HMMA$"
out=$(python3 "$tree/scripts/sass_mix.py" stepx nested --innermost --sass "$work/nested.sass" 2>&1)
expect "nested, --innermost: the inner loop" "$out" "^  main loop \(the longest innermost\): 3 instructions \(0x20-0x40\), 1 HMMA: 3.0 instructions per HMMA$"
check_exit 2 "no such kernel" env CUOBJDUMP="$work/bin/cuobjdump" python3 "$tree/scripts/sass_mix.py" step4_w4a8 no_such_kernel
check_exit 2 "no arguments" python3 "$tree/scripts/sass_mix.py"
check_exit 2 "--per without a kind" python3 "$tree/scripts/sass_mix.py" step4_w4a8 x --per
check_exit 2 "--per a kind the loop lacks" env CUOBJDUMP="$work/bin/cuobjdump" python3 "$tree/scripts/sass_mix.py" step4_w4a8 'w4a8_dp4a(' --per HMMA
check_exit 77 "no cuobjdump" env CUOBJDUMP="$work/none" PATH=/usr/bin:/bin CUDA_HOME="$work/none" python3 "$tree/scripts/sass_mix.py" step4_w4a8 x
exit $failures
