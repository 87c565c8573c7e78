#!/usr/bin/env python3
"""Copies program output into the READMEs, so no number in them is typed by hand.

usage: scripts/update_readme_results.py LOG_DIR

LOG_DIR is what scripts/build_and_test.sh wrote (LOG_DIR=... scripts/build_and_test.sh): one
<step>.log per step and run_info.txt (GPU, CUDA version, date). In every README.md that holds

    <!-- results:step1_fp32 -->
    ...
    <!-- /results -->

the lines between the markers are replaced by the run's line and the step's output, verbatim.
"""
import pathlib
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    logs = pathlib.Path(sys.argv[1])
    info = (logs / "run_info.txt").read_text().strip()
    root = pathlib.Path(__file__).resolve().parent.parent
    pattern = re.compile(r"(<!-- results:(\w+) -->\n).*?(<!-- /results -->)", re.S)
    for readme in sorted(root.glob("**/README.md")):
        if "build" in readme.parts:
            continue
        text = readme.read_text()

        def fill(match: re.Match) -> str:
            step = match.group(2)
            log = (logs / f"{step}.log").read_text().rstrip()
            body = f"Printed by `build/{step}` ({info}), via `scripts/build_and_test.sh`:\n\n```\n{log}\n```\n"
            return match.group(1) + body + match.group(3)

        new = pattern.sub(fill, text)
        if new != text:
            readme.write_text(new)
            print(f"updated {readme.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
