#!/usr/bin/env bash
# usage: host_sanitizers.sh SOURCE_DIR CMAKE CUDA_COMPILER
# The CPU side of every check is host code: the references, the quantizers ggml's bytes are
# compared with, the repacks, the option parsing. A read past a buffer or a signed overflow there
# can leave every result as it was, today, on this compiler. So the CPU unit tests are built once
# more, in a scratch directory, with AddressSanitizer and UndefinedBehaviorSanitizer (GCC's, through
# nvcc -Xcompiler), and run: any report stops the test with a non-zero exit. No GPU is needed; the
# device code is built for the oldest architecture only, since nothing here runs it.
set -u
src=$1 cmake=$2 nvcc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
units="test_common test_quants test_kquants test_w4a16_cpu test_w4a8_cpu"

arch=75
"$nvcc" --version | grep -q "release 1[0-2]\." && arch=61
# Each -Xcompiler takes one option: a comma would split it in two.
flags="-Xcompiler=-fsanitize=address -Xcompiler=-fsanitize=undefined -Xcompiler=-fno-sanitize-recover=undefined"
flags="$flags -Xcompiler=-fno-omit-frame-pointer"
# A host compiler without the sanitizers' runtimes, or a system where ASan cannot map its shadow
# memory, is not a bug of this project: the test then says so and skips (exit 77).
# The probe uses nvcc's host compiler (CUDAHOSTCXX when set, as CMake does; else g++, nvcc's own).
if ! { printf 'int main() { return 0; }\n' | "${CUDAHOSTCXX:-g++}" -fsanitize=address -fsanitize=undefined -x c++ - -o "$work/probe" &&
  ASAN_OPTIONS=protect_shadow_gap=0 "$work/probe"; } >"$work/probe.log" 2>&1; then
  echo "SKIP: the host compiler cannot build or run a program with AddressSanitizer and UBSan here:"
  tail -n 3 "$work/probe.log"
  exit 77
fi
if ! "$cmake" -S "$src" -B "$work/build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Debug -DCUDA_ARCH="$arch" \
  -DCMAKE_CUDA_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address -fsanitize=undefined" >"$work/configure.log" 2>&1; then
  echo "FAIL: the sanitizer build did not configure"; tail -n 20 "$work/configure.log"; exit 1
fi
# shellcheck disable=SC2086  # the target list is words
if ! "$cmake" --build "$work/build" -j "$(nproc 2>/dev/null || echo 2)" --target $units >"$work/build.log" 2>&1; then
  echo "FAIL: the sanitizer build did not compile"; grep -m 10 -i "error" "$work/build.log"; exit 1
fi

failures=0
for unit in $units; do
  # protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its shadow gap by default.
  if ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$work/build/$unit" >"$work/$unit.log" 2>&1; then
    echo "ok: $unit under ASan and UBSan ($(tail -n 1 "$work/$unit.log"))"
  else
    echo "FAIL: $unit under ASan and UBSan"
    grep -m 1 -A 12 "ERROR: \|runtime error" "$work/$unit.log" || tail -n 12 "$work/$unit.log"
    failures=$((failures + 1))
  fi
done
[ $failures -eq 0 ] && echo "host sanitizers: all $(wc -w <<<"$units") unit tests clean" || echo "host sanitizers: $failures unit tests failed"
exit $((failures != 0))
