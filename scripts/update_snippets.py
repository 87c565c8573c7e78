#!/usr/bin/env python3
"""Copies the kernels' key lines into the lessons, so that what a README quotes is the code.

usage: scripts/update_snippets.py [--check]

In every lesson Markdown file (a step's README.md, a chapter beside it) a block

    <!-- snippet:common/q4_0_q8_1.h#compensated_block_term -->
    ...
    <!-- /snippet -->

is replaced by the definition of that function in that file: its comment lines just above it,
then its lines down to the brace that closes its body, in a ```cpp fence. With --check nothing is written: exit 1 if any block differs from the source (the CTest
readme_snippets_current runs that), naming it. Exit 2 when a block names a file or a function
that is not there.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- snippet:([\w./-]+)#(\w+) -->\n).*?(<!-- /snippet -->)", re.S)


def lesson_files() -> list:
    def ignored(p: pathlib.Path) -> bool:
        top = p.relative_to(ROOT).parts[0]
        return top == "build" or top.startswith("build-") or top.startswith(".")

    return [p for p in sorted(ROOT.glob("**/*.md")) if not ignored(p)]


def definition(path: str, name: str) -> str:
    source = ROOT / path
    if not source.is_file():
        raise LookupError(f"{path}: no such file")
    lines = source.read_text().split("\n")
    start = next((i for i, l in enumerate(lines) if re.search(rf"\b{name}\(", l) and not l.rstrip().endswith(";")
                  and not l.lstrip().startswith("//")), None)
    if start is None:
        raise LookupError(f"{path}: no definition of {name}")
    while start > 0 and re.match(r"\s*template\s*<", lines[start - 1]):
        start -= 1
    first = start
    while first > 0 and lines[first - 1].lstrip().startswith("//"):
        first -= 1
    depth, opened, end = 0, False, start
    for end in range(start, len(lines)):
        code = lines[end].split("//")[0]
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth == 0:
            break
    else:
        raise LookupError(f"{path}: {name} does not end")
    return "\n".join(lines[first:end + 1])


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if sys.argv[1:] not in ([], ["--check"]):
        print("usage: scripts/update_snippets.py [--check]", file=sys.stderr)
        return 2
    check = sys.argv[1:] == ["--check"]
    stale = []
    for md in lesson_files():
        text = md.read_text()

        def fill(m: re.Match) -> str:
            body = f"From `{m.group(2)}`:\n\n```cpp\n{definition(m.group(2), m.group(3))}\n```\n"
            return m.group(1) + body + m.group(4)

        try:
            new = BLOCK.sub(fill, text)
        except LookupError as e:
            print(f"{md.relative_to(ROOT)}: {e}", file=sys.stderr)
            return 2
        if new == text:
            continue
        names = [f"{m.group(2)}#{m.group(3)}" for m in BLOCK.finditer(text)]
        if check:
            stale.append(f"{md.relative_to(ROOT)} ({', '.join(names)})")
        else:
            md.write_text(new)
            print(f"updated {md.relative_to(ROOT)}")
    if stale:
        print("these lessons quote code that has changed since; run scripts/update_snippets.py:\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
