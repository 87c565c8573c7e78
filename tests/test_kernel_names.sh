#!/usr/bin/env bash
# usage: test_kernel_names.sh SOURCE_DIR BUILD_DIR
# No coupling by strings that nothing checks: every kernel name that a file outside the programs
# names must be one the program has.
#   scripts/targets.txt    the kernels of each goal (OURS) and its baseline (vs KERNEL)   --list
#   scripts/profiles.txt   the kernel a lesson's profile runs (and scripts/stalls.txt)    --list
#                          and the function ncu looks for (FUNCTION, else KERNEL): some compiled
#                          kernel of the program has it in its own name (nm, as below)
#   step5's contenders     the kernels step 5 times of steps 3 and 4 (speed_level.h)      --list
#   scripts/results_csv.py step 4's kernels by weight format (STEP4_WEIGHTS), for llama  --list
#   the lessons (*.md)     every "build/STEP ... --kernel A,B" command                    --list
#   scripts/sass_mix.txt   the kernel function a lesson's SASS count reads: exactly one compiled
#                          kernel of the program has it in its name (spaces ignored), as sass_mix.py
#                          will look for it (here from the host's kernel stubs, nm; no cuobjdump)
# Prints one line per name that is not there; exit 1 if any.
set -u
set -f  # a goal's "*" is a word here, not a file pattern
src=$1 build=$2
bad=0
declare -A listed
names_of() {  # the names --list prints for a program (cached)
  local step=$1
  if [ -z "${listed[$step]+set}" ]; then
    if [ -x "$build/$step" ]; then listed[$step]=" $("$build/$step" --list | awk '{print $1}' | paste -sd' ') "
    else listed[$step]=""; fi
  fi
  printf '%s' "${listed[$step]}"
}
need() {  # need WHERE STEP NAME
  local list
  list=$(names_of "$2")
  if [ -z "$list" ]; then echo "MISSING: $1 names program '$2', which is not built"; bad=1
  elif [[ "$list" != *" $3 "* ]]; then echo "MISSING: $1 names kernel '$3', which '$2 --list' does not have"; bad=1; fi
}

# scripts/targets.txt: STEP | GOAL | ROWS | OURS | TEST
while IFS='|' read -r step _ _ ours test; do
  read -r step _ <<<"$step"  # its first word, without the spaces
  step=${step%%/*}           # step4_w4a8/TENSOR_CORES.md: a chapter of step4_w4a8
  [ -z "$step" ] || [[ "$step" == \#* ]] && continue
  for k in $ours; do [ "$k" = "*" ] || need "scripts/targets.txt ($step)" "$step" "$k"; done
  if [[ "$test" =~ vs[[:space:]]+([A-Za-z0-9_]+) ]]; then need "scripts/targets.txt ($step)" "$step" "${BASH_REMATCH[1]}"; fi
done <"$src/scripts/targets.txt"

# step 5's contender lists: const std::vector<std::string> kStep3Contenders = {"a", "b"};
for pair in "kStep3Contenders step3_w4a16" "kStep4Contenders step4_w4a8" "kStep4Q4KContenders step4_w4a8"; do
  read -r var step <<<"$pair"
  line=$(grep -E "\b$var = \{" "$src/step5_llama_compare/speed_level.h")
  [ -n "$line" ] || { echo "MISSING: $var in step5_llama_compare/speed_level.h"; bad=1; continue; }
  for k in $(grep -oE '"[A-Za-z0-9_]+"' <<<"$line" | tr -d '"'); do need "step 5's $var" "$step" "$k"; done
done

# scripts/results_csv.py: STEP4_WEIGHTS = {"kernel": "format", ...} (which llama.cpp time a kernel meets)
line=$(grep -E '^STEP4_WEIGHTS = \{' "$src/scripts/results_csv.py")
[ -n "$line" ] || { echo "MISSING: STEP4_WEIGHTS in scripts/results_csv.py"; bad=1; }
for k in $(grep -oE '"[A-Za-z0-9_]+":' <<<"$line" | tr -d '":'); do need "scripts/results_csv.py STEP4_WEIGHTS" step4_w4a8 "$k"; done

# The demangled names of a program's kernels, spaces removed, one a line, from the launch stubs
# nvcc made for them: a symbol holds <length>__device_stub__<the kernel's mangled name without its
# leading _>, the length that of the stub's name.
kernel_names() {
  nm "$1" | python3 -c '
import re, subprocess, sys
kernels = set()
for line in sys.stdin:
    for m in re.finditer(r"(\d+)__device_stub__", line):
        stub = line[m.start() + len(m.group(1)):][: int(m.group(1))]
        kernels.add("_" + stub[len("__device_stub__"):])
names = subprocess.run(["c++filt"], input="\n".join(sorted(kernels)), capture_output=True, text=True).stdout
print(names.replace(" ", ""), end="")
'
}

# scripts/sass_mix.txt: LABEL STEP FUNCTION [ARGS]
while read -r label step function _; do
  [ -z "$label" ] || [[ "$label" == \#* ]] && continue
  if [ ! -f "$build/$step" ]; then echo "MISSING: scripts/sass_mix.txt names program '$step', which is not built"; bad=1; continue; fi
  kernels=$(kernel_names "$build/$step")
  count=$(grep -cF -- "$(tr -d ' ' <<<"$function")" <<<"$kernels")
  [ "$count" -eq 1 ] || { echo "MISSING: scripts/sass_mix.txt ($label) names '$function', which $count kernels of $step have in their name (1 wanted)"; bad=1; }
done <"$src/scripts/sass_mix.txt"

# scripts/profiles.txt and scripts/stalls.txt: STEP KERNEL [FUNCTION=REGEX] [ARGS]: the kernel
# (--list), and the function profile.sh asks ncu for, a regex of the kernel's name.
for list in profiles.txt stalls.txt; do
  while read -r step kernel rest; do
    [ -z "$step" ] || [[ "$step" == \#* ]] && continue
    need "scripts/$list" "$step" "$kernel"
    [ -f "$build/$step" ] || continue  # need said so
    function=$kernel
    [[ "$rest" == FUNCTION=* ]] && { function=${rest%% *}; function=${function#FUNCTION=}; }
    # ncu matches the function's own name: no namespace, template arguments or parameters
    grep -qE -- "$function" <<<"$(kernel_names "$build/$step" | sed -E 's/[<(].*//; s/.*:://')" ||
      { echo "MISSING: scripts/$list ($step $kernel) has ncu look for '$function', which no kernel of $step has in its name"; bad=1; }
  done <"$src/scripts/$list"
done

# The lessons' commands: every "build/STEP ... --kernel A,B" in a Markdown file of the tree, so that
# a command a reader copies from a lesson names kernels that exist.
commands=0
while IFS= read -r line; do
  file=${line%%:*} cmd=${line#*:}
  step=$(grep -oE 'build/step[0-9]_[A-Za-z0-9_]+' <<<"$cmd" | head -n 1) step=${step#build/}
  list=$(grep -oE -- '--kernel[ =][A-Za-z0-9_,]+' <<<"$cmd" | head -n 1) list=${list#--kernel?}
  commands=$((commands + 1))
  for k in ${list//,/ }; do need "${file#"$src"/}" "$step" "$k"; done
done < <(grep -roE --include='*.md' --exclude-dir=build 'build/step[0-9]_[A-Za-z0-9_]+[^`]*--kernel[ =][A-Za-z0-9_,]+' "$src")
[ $commands -gt 0 ] || { echo "MISSING: no lesson command with --kernel found (the pattern no longer matches the lessons)"; bad=1; }

if [ $bad -eq 0 ]; then echo "ok: every kernel name in scripts/targets.txt, profiles.txt, stalls.txt, sass_mix.txt, results_csv.py, step 5's contender lists and the lessons' $commands --kernel commands exists"; fi
exit $bad
