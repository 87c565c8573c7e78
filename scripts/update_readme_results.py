#!/usr/bin/env python3
"""Copies program output into the READMEs, so no number in them is typed by hand.

usage: scripts/update_readme_results.py LOG_DIR

LOG_DIR is what scripts/build_and_test.sh wrote (LOG_DIR=... scripts/build_and_test.sh): one
<step>.log per step and run_info.txt (GPU, CUDA version, architecture, date). In every Markdown
file of the lessons (a step's README.md, or a chapter beside it such as step4_w4a8/TENSOR_CORES.md)
that holds

    <!-- results:step1_fp32 -->
    ...
    <!-- /results -->

the lines between the markers are replaced by the run's line and the step's output, verbatim.
A block named `<step>--<flag>` (step3_w4a16--sweep) holds the output of `build/<step> --<flag>`,
logged as <step>--<flag>.log; a block named `profile--<step>--<kernel>--m<M>` holds what
scripts/profile.sh printed for that kernel (scripts/profiles.txt lists them), one named
`stalls--<step>--<kernel>--m<M>` what `scripts/profile.sh --by-line` printed (scripts/stalls.txt),
and one named `sass--<step>--<label>` what scripts/sass_mix.py printed (scripts/sass_mix.txt).
A block named `<step>--<flag>--summary` holds only the table that run prints last (from its last
line starting with "== the " to the end: the sweep's or the summit's summary), so that a lesson
can show it inline and leave the whole output to a page of its own.
A step whose log is not in LOG_DIR keeps its README as it is (a run of one step updates one
lesson; each block names the run it came from).

A lesson shows what its program printed on a GPU, every check passing: logs from a run without a
GPU, with a kernel skipped for want of a newer GPU or build, or with a failed check are refused
(exit 1) and no README is touched.
"""
import pathlib
import re
import sys

# Lines that disqualify a log: no GPU, a kernel the GPU or the build could not run, a failure.
REFUSED = [
    (re.compile(r"no usable CUDA device"), "it ran without a GPU"),
    (re.compile(r"^SKIP \S+: needs", re.M), "a kernel was skipped for want of a newer GPU or build"),
    (re.compile(r"\bFAIL\b|SOME CHECKS FAILED"), "a check failed"),
]


# Blocks filled from a script's output rather than a step program's: name prefix -> the script.
SCRIPT_BLOCKS = {"profile": "scripts/profile.sh", "stalls": "scripts/profile.sh --by-line", "sass": "scripts/sass_mix.py"}
SUMMARY = "--summary"  # a block of a run's last table only


def ignored_tree(readme: pathlib.Path) -> bool:
    """A README inside what .gitignore leaves out (build/, build-*/, hidden folders such as .venv/):
    a build tree or an exported copy of the sources, never one of the lessons."""
    top = readme.parts[0] if len(readme.parts) > 1 else ""
    return top == "build" or top.startswith("build-") or top.startswith(".")


def problems(info: str, logs: dict) -> list:
    found = []
    if "none visible" in info:
        found.append(f"run_info.txt says no GPU was visible: {info}")
    for step, text in logs.items():
        for pattern, why in REFUSED:
            match = pattern.search(text)
            if match:
                line = text[text.rfind("\n", 0, match.start()) + 1:].split("\n", 1)[0]
                found.append(f"{step}.log: {why}: {line.strip()}")
    return found


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    logs_dir = pathlib.Path(sys.argv[1])
    info = (logs_dir / "run_info.txt").read_text().strip()
    root = pathlib.Path(__file__).resolve().parent.parent
    pattern = re.compile(r"(<!-- results:([\w-]+) -->\n).*?(<!-- /results -->)", re.S)
    readmes = [p for p in sorted(root.glob("**/*.md")) if not ignored_tree(p.relative_to(root))]
    wanted = {m.group(2) for p in readmes for m in pattern.finditer(p.read_text())}
    logs = {}
    for step in sorted(wanted):
        log = logs_dir / f"{step.removesuffix(SUMMARY)}.log"
        if log.exists():
            logs[step] = log.read_text().rstrip()
            if step.endswith(SUMMARY):
                starts = [i for i, line in enumerate(logs[step].splitlines()) if line.startswith("== the ")]
                if not starts:
                    print(f"refused: {log} has no '== the ...' line for the block {step}")
                    return 1
                logs[step] = "\n".join(logs[step].splitlines()[starts[-1]:])
    if not logs:
        print(f"refused: {logs_dir} holds no log of a step whose README has a results block")
        return 1
    found = problems(info, logs)
    if found:
        print("refused, no README changed:\n  " + "\n  ".join(found))
        return 1
    for readme in readmes:
        text = readme.read_text()

        def fill(match: re.Match) -> str:
            step = match.group(2)
            if step not in logs:
                return match.group(0)
            program, _, flag = step.removesuffix(SUMMARY).partition("--")
            command = SCRIPT_BLOCKS.get(program) or f"build/{program}" + (f" --{flag}" if flag else "")
            said = f"The table at the end of what `{command}` printed" if step.endswith(SUMMARY) else f"Printed by `{command}`"
            body = f"{said} ({info}):\n\n```\n{logs[step]}\n```\n"
            return match.group(1) + body + match.group(3)

        new = pattern.sub(fill, text)
        if new != text:
            readme.write_text(new)
            print(f"updated {readme.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
