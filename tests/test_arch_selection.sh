#!/usr/bin/env bash
# usage: test_arch_selection.sh SOURCE_DIR CMAKE CUDA_COMPILER
# The build's architecture choice, without a GPU: a fake nvidia-smi on PATH reports a compute
# capability (or fails), and the project is configured into a scratch directory, twice or more,
# to show that the choice is the same on every configure and that a value the user gave stays.
set -u
src=$1 cmake=$2 nvcc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fake_smi() {  # fake_smi "9.0" | fake_smi fail
  mkdir -p "$work/bin"
  if [ "$1" = fail ]; then
    printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$work/bin/nvidia-smi"
  else
    printf '#!/bin/sh\necho "%s"\n' "$1" >"$work/bin/nvidia-smi"
  fi
  chmod +x "$work/bin/nvidia-smi"
}

# configure BUILD_DIR EXPECTED [cmake args...]: passes when the configure prints "architectures EXPECTED ("
configure() {
  local dir=$1 expected=$2
  shift 2
  local out
  out=$(PATH="$work/bin:$PATH" "$cmake" -S "$src" -B "$work/$dir" -DCMAKE_CUDA_COMPILER="$nvcc" "$@" 2>&1)
  local got
  got=$(printf '%s\n' "$out" | sed -n 's/.*architectures \([^ ]*\) (\(.*\))$/\1 (\2)/p')
  if printf '%s\n' "$got" | grep -q "^$expected ("; then
    echo "ok: $dir $* -> $got"
  else
    echo "FAIL: $dir $* -> '${got:-no architecture line}', expected $expected"
    printf '%s\n' "$out" | tail -n 5
    failures=$((failures + 1))
  fi
}

fallback=75
"$nvcc" --version | grep -q "release 1[0-2]\." && fallback=61

fake_smi "9.0"
configure detect 90a                     # the visible GPU, as its architecture-specific target (wgmma) ...
configure detect 90a                     # ... and again on the next configure (was: 75)
configure detect 80 -DCUDA_ARCH=sm_80    # what make CUDA_ARCH=sm_80 passes
configure detect 90a -DCUDA_ARCH=        # a plain make afterwards: the visible GPU again
configure detect 90 -DCUDA_ARCH=sm_90    # plain sm_90 when asked for
configure detect 90a -DCUDA_ARCH=sm_90a  # the architecture-specific target for wgmma
configure detect "75;90" "-DCUDA_ARCH=75,sm_90"

configure user 86 -DCMAKE_CUDA_ARCHITECTURES=86   # CMake's own variable, set by the user ...
configure user 86                                 # ... stays the user's choice

fake_smi fail
configure nogpu $fallback                # no GPU: the fallback ...
configure nogpu $fallback                # ... every time
fake_smi "9.0"
configure nogpu 90a                      # a GPU appears: the fallback was not taken as a choice
fake_smi "8.6"
configure ampere 86                      # no architecture-specific target for sm_86

refused() {  # refused CUDA_ARCH MESSAGE: the configure stops, saying MESSAGE
  if PATH="$work/bin:$PATH" "$cmake" -S "$src" -B "$work/bad" -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDA_ARCH="$1" >"$work/bad.log" 2>&1; then
    echo "FAIL: CUDA_ARCH=$1 configured"; failures=$((failures + 1))
  elif grep -q "$2" "$work/bad.log"; then echo "ok: CUDA_ARCH=$1 refused"
  else echo "FAIL: CUDA_ARCH=$1 refused without '$2'"; tail -n 5 "$work/bad.log"; failures=$((failures + 1)); fi
  rm -rf "$work/bad"
}
refused sm_nine "is not an architecture"
# Older than the toolkit's oldest target: refused at configure, not deep inside nvcc.
"$nvcc" --version | grep -q "release 1[3-9]\." && refused sm_50 "compiles for sm_75 and newer, not sm_50"
refused sm_30 "and newer, not sm_30"

[ $failures -eq 0 ] && echo "architecture selection: all checks passed" || echo "architecture selection: $failures checks failed"
exit $((failures != 0))
