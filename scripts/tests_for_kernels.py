#!/usr/bin/env python3
"""The CTests that concern some kernels of one step, as a ctest -R regex (scripts/kernel_check.sh).

usage: scripts/tests_for_kernels.py BUILD_DIR STEP KERNEL[,KERNEL...]

A test concerns them when its name starts with the step's prefix (step3_ for step3_w4a16) and it
is one of the step's shape, lesson or canary tests (they run every kernel that can run a shape),
a sanitizer test of the whole program (no --kernel: it runs every kernel), or when its command names one of the
kernels as a word (a --kernel list, or a ragged-tile test of that kernel). The tests come from ctest's own list (ctest --show-only=json-v1 in
BUILD_DIR), so a test added to a step's tests.cmake is found without a change here. Prints the
regex, or nothing when no test concerns them; exit 2 on bad usage or when ctest cannot list.
"""
import json
import re
import subprocess
import sys


def chosen_tests(tests: list, prefix: str, kernels: list) -> list:
    names = []
    for t in tests:
        name, words = t["name"], " ".join(t.get("command", [])).replace(",", " ").split()
        if not name.startswith(prefix + "_"):
            continue
        every_kernel = re.match(prefix + r"_(shape|lesson|canary)", name) or (
            re.match(prefix + r"_(memcheck|racecheck|synccheck|initcheck)_", name) and "--kernel" not in words
            and not any(w.endswith("ragged_tiles.sh") for w in words))
        if every_kernel or any(k in words for k in kernels):
            names.append(name)
    return names


def main(argv: list) -> int:
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 4 or not re.fullmatch(r"[a-z0-9_]+(,[a-z0-9_]+)*", argv[3]):
        print("usage: scripts/tests_for_kernels.py BUILD_DIR STEP KERNEL[,KERNEL...]", file=sys.stderr)
        return 2
    build, step, kernels = argv[1], argv[2], argv[3].split(",")
    listed = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True)
    if listed.returncode != 0:
        print(f"tests_for_kernels.py: ctest cannot list the tests in {build}: {listed.stderr.strip()}", file=sys.stderr)
        return 2
    names = chosen_tests(json.loads(listed.stdout)["tests"], step.split("_")[0], kernels)
    print("|".join("^" + re.escape(n) + "$" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
