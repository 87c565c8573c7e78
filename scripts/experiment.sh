#!/usr/bin/env bash
# An experiment that did not pay, rebuilt from main: the lab notes keep each one as a patch in a
# step's experiments/ folder. A patch made against an older main may no longer apply to today's
# tree, so each one names a commit it applies to, the one it was made on ("Base: <commit>" in the
# lines above its diff, which git apply skips); this script checks that commit out beside your
# tree and applies the patch there.
#
# usage: scripts/experiment.sh PATCH [DIR]   a worktree of the patch's base (or of HEAD, when the
#                                            patch applies to it) in DIR (default:
#                                            /tmp/experiment-NAME), the patch applied; then build
#                                            and time it there like any tree (scripts/ab_time.sh;
#                                            its "build" also applies patches, for one that
#                                            applies to HEAD: build HEAD DIR STEP PATCH...)
#        scripts/experiment.sh --check       every */experiments/*.patch applies, to HEAD or at its
#                                            Base, and its step's lab notes or lessons (its *.md)
#                                            name it (nothing written; a CTest test)
#   e.g. scripts/experiment.sh step3_w4a16/experiments/wgmma_dequantize_per_kstep.patch
# A new patch: write its Base line with the commit you made it on (git rev-parse HEAD), e.g.
#   { echo "Base: $(git rev-parse HEAD)"; echo; git diff; } > stepN_name/experiments/NAME.patch
# and name NAME.patch in the lab notes' row of the idea (--check asks for that).
# Exit 0 when done, 1 when a patch applies nowhere or no note names it, 2 on bad usage, 77
# outside a git clone (and for --check in a shallow one).
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
start=$PWD
cd "$(dirname "$0")/.."

usage() { echo "experiment.sh: $1 (see scripts/experiment.sh --help)"; exit 2; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "experiment.sh: not a git clone (the patches name commits)"; exit 77; }

base_of() { sed -n 's/^Base: \([0-9a-f]\{7,40\}\)$/\1/p' "$1" | head -n 1; }

# Where PATCH applies: "HEAD", its base commit, or nothing (with a reason on stderr).
where_it_applies() {
  local patch=$1 base index
  if git apply --check "$patch" >/dev/null 2>&1; then echo HEAD; return 0; fi
  base=$(base_of "$patch")
  if [ -z "$base" ]; then echo "$patch: does not apply to HEAD, and names no 'Base: <commit>'" >&2; return 1; fi
  git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "$patch: its base $base is not a commit of this clone" >&2; return 1; }
  index=$(mktemp)
  if GIT_INDEX_FILE=$index git read-tree "$base" && GIT_INDEX_FILE=$index git apply --cached --check "$patch" >/dev/null 2>&1; then
    rm -f "$index"; echo "$base"; return 0
  fi
  rm -f "$index"; echo "$patch: applies neither to HEAD nor at its base $base" >&2; return 1
}

if [ "${1:-}" = --check ]; then
  [ $# -eq 1 ] || usage "--check takes nothing more"
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then echo "experiment.sh: a shallow clone may lack the patches' base commits"; exit 77; fi
  failures=0 count=0
  for patch in step*_*/experiments/*.patch; do
    [ -e "$patch" ] || continue
    count=$((count + 1))
    if ! at=$(where_it_applies "$patch"); then failures=$((failures + 1)); continue; fi
    step=${patch%%/*}
    if ! grep -qF "$(basename "$patch")" "$step"/*.md; then
      echo "$patch: no lab note or lesson of $step names it (say what it tried and how it went)" >&2
      failures=$((failures + 1)); continue
    fi
    echo "ok: $patch applies at ${at:0:12}, named in $step's notes"
  done
  echo "experiment patches: $count, $failures that apply nowhere or that no note names"
  exit $((failures != 0))
fi

[ $# -ge 1 ] && [ $# -le 2 ] || usage "name a patch, and optionally a folder"
case $1 in /*) patch=$1 ;; *) patch=$start/$1 ;; esac
[ -f "$patch" ] || usage "there is no patch '$1'"
dir=${2:-/tmp/experiment-$(basename "$patch" .patch)}
[ -e "$dir" ] && usage "'$dir' exists; name another folder or remove it (git worktree remove '$dir')"
at=$(where_it_applies "$patch") || exit 1
git worktree add --quiet --detach "$dir" "$at" || exit 1
git -C "$dir" apply "$patch" || exit 1
echo "$dir: $(git -C "$dir" log --format='%h (%cs)' -1) with $(basename "$patch") applied; build it there (cmake -S $dir -B $dir/build ...),"
echo "or time it against main: scripts/ab_time.sh run build/STEP $dir/build/STEP 3 -- ARGS. Remove it with: git worktree remove --force $dir"
