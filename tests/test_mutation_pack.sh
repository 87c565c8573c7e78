#!/usr/bin/env bash
# usage: test_mutation_pack.sh SOURCE_DIR BUILD_DIR
# scripts/mutation_test.sh --pack and --from, end to end on one CPU row (check_bound_exclusive, whose
# test is test_common): the pack builds the unmutated and the mutated test here, the run judges
# them without building; a pack whose "mutant" is the unmutated binary is reported MISSED, so a
# catch is the packed binary's doing. Bad usage is exit 2, and a folder that is not a pack's tree
# is never replaced. Built for BUILD_DIR's architectures, in a root of its own.
set -u
src=$1
# shellcheck source=script_checks.sh
source "$src/tests/script_checks.sh"
script="$src/scripts/mutation_test.sh"
arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$2/CMakeCache.txt")
export MUTATION_PACK_ROOT=$work/root

check_exit 2 "--pack without a file" bash "$script" --pack
check_exit 2 "--from a missing pack" bash "$script" --from "$work/none.tar.gz"
tar -czf "$work/other.tar.gz" -C "$src" README.md
check_exit 2 "--from an archive that is not a pack" bash "$script" --from "$work/other.tar.gz"
mkdir -p "$work/root" && touch "$work/root/keep"
check_exit 2 "--pack where a folder of something else stands" bash "$script" --pack "$work/p.tar.xz" check_bound_exclusive
expect "which is left alone" "$(ls "$work/root")" "^keep$"
rm -r "$work/root"

out=$(CUDA_ARCH=$arch bash "$script" --pack "$work/pack.tar.xz" check_bound_exclusive 2>&1)
expect "the row is packed" "$out" "^packed 1 rows into $work/pack.tar.xz"
out=$(bash "$script" --from "$work/pack.tar.xz" 2>&1); rc=$?
expect "--from judges it without a build" "$out" "^caught  check_bound_exclusive by test_common$"
expect "and exits 0" "exit $rc" "^exit 0$"

# The same pack with the unmutated binary in the mutant's place.
mkdir "$work/x" && tar -xf "$work/pack.tar.xz" -C "$work/x"
packed=$(find "$work/x" -type d -name packed)
cp "$packed/baseline/test_common" "$packed/check_bound_exclusive/test_common"
tar -czf "$work/doctored.tar.gz" -C "$work/x" .
out=$(bash "$script" --from "$work/doctored.tar.gz" 2>&1); rc=$?
expect "an unmutated 'mutant' is missed" "$out" "^MISSED  check_bound_exclusive"
expect "and exits 1" "exit $rc" "^exit 1$"
exit $failures
