#!/usr/bin/env bash
# usage: test_ab_time.sh SOURCE_DIR
# scripts/ab_time.sh: bad usage is exit 2; "run" alternates the binaries (two or more), gives each its own
# CSV and reports each against A through compare_results.py (a fake nvidia-smi and fake step
# programs that write one CSV row each, so no GPU is needed).
set -u
src=$1
script="$src/scripts/ab_time.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }

for args in "" "frobnicate" "run" "run $work/none $work/none 3 -- --m 1" "build" "build no-such-revision $work/x step3_w4a16" \
            "build HEAD $work/x step9_none" "build HEAD $work/x step3_w4a16 $work/no-such.patch"; do
  bash "$script" $args >/dev/null 2>&1; code=$?
  check "'ab_time.sh $args' is exit 2" "[ $code -eq 2 ]"
done

# A patch that does not apply: exit 1, and no worktree left behind.
printf 'diff --git a/nothere b/nothere\n--- a/nothere\n+++ b/nothere\n@@ -1 +1 @@\n-a\n+b\n' >"$work/bad.patch"
worktrees=$(git -C "$src" worktree list | wc -l)
(cd "$src" && bash "$script" build HEAD "$work/x" step3_w4a16 "$work/bad.patch" >/dev/null 2>&1); code=$?
check "a patch that does not apply: exit 1" "[ $code -eq 1 ]"
check "its worktree is removed" "[ \$(git -C \"$src\" worktree list | wc -l) -eq $worktrees ]"

# A fake GPU and two fake step programs: each run appends one row, A at 1.0 ms, B at the time in
# its name, and logs the order in which the sides ran.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "GPU 0: Fake"\n' >"$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"
header="step,case,kernel,M,N,K,time_ms,tflops,gbps,pct_roofline,error_metric,error_value,status,gpu,cc,time_min_ms,ops_unit,l2,quant_nmse"
fake() {  # fake NAME TIME
  cat >"$work/$1" <<FAKE
#!/bin/sh
echo "$1" >>"$work/order"
while [ \$# -gt 0 ]; do [ "\$1" = "--csv" ] && csv=\$2; shift; done
[ -f "\$csv" ] || echo "$header" >"\$csv"
echo "step9,decode,gemv,1,4096,4096,$2,1,1,1,err,0,PASS,Fake,90,$2,TOPS,cold,nan" >>"\$csv"
FAKE
  chmod +x "$work/$1"
}
fake a 1.0; fake fast 0.5; fake slow 1.3
for bad in "$work/a $work/fast 0 -- --m 1" "$work/a $work/fast 3 --m 1" "$work/a $work/fast 3 -- --csv x"; do
  PATH="$work/bin:$PATH" bash "$script" run $bad >/dev/null 2>&1; code=$?
  check "'run $bad' is exit 2" "[ $code -eq 2 ]"
done
out=$(cd "$src" && PATH="$work/bin:$PATH" LOG_DIR="$work/logs" bash "$script" run "$work/a" "$work/fast" 3 -- --m 1); code=$?
check "a faster B: exit 0" "[ $code -eq 0 ]"
check "the sides alternate, three rounds each" "[ \"\$(tr '\n' ' ' <"$work/order")\" = 'a fast a fast a fast ' ]"
check "each side's CSV holds its three rounds" "[ \$(grep -c gemv "$work/logs/a.csv") -eq 3 ] && [ \$(grep -c gemv "$work/logs/b.csv") -eq 3 ]"
check "B's speed relative to A is printed" "printf '%s\n' \"\$out\" | grep -q 'gemv .* 2.00'"
out=$(cd "$src" && PATH="$work/bin:$PATH" LOG_DIR="$work/logs" bash "$script" run "$work/a" "$work/slow" 1 -- --m 1); code=$?
check "a slower B is flagged, exit 1" "[ $code -eq 1 ] && printf '%s\n' \"\$out\" | grep -q SLOWER"
rm -f "$work/order"
out=$(cd "$src" && PATH="$work/bin:$PATH" LOG_DIR="$work/logs" bash "$script" run "$work/a" "$work/fast" "$work/slow" 2 -- --m 1); code=$?
check "three binaries alternate in turn" "[ \"\$(tr '\n' ' ' <"$work/order")\" = 'a fast slow a fast slow ' ]"
check "each of B and C is compared with A, and C's slower row flagged: exit 1" \
  "[ $code -eq 1 ] && printf '%s\n' \"\$out\" | grep -q 'gemv .* 2.00' && printf '%s\n' \"\$out\" | grep -q SLOWER"
exit $((failures != 0))
