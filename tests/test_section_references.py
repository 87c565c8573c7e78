#!/usr/bin/env python3
"""Every quoted section reference in the lessons and the code leads to a section that exists.

usage: tests/test_section_references.py [REPO_ROOT]   (exit 0: all found; 1: one leads nowhere)

A reference is a Markdown file followed by a quoted section name, in either of two forms:

    [LAB_NOTES.md](LAB_NOTES.md), "The quantizer"       a link: the path is the link's
    TENSOR_CORES.md, "Turning the tile"                 a bare name (or path): the nearest such file,
                                                        from the referring file's folder up to the root
The name, its line breaks read as spaces, must be the start of a heading (## to ####) of that
file. Files under build/ and dot folders are not read, nor the tests' own Python (their usage
texts show the forms).
"""
import pathlib
import re
import sys

LINKED = re.compile(r'\]\(([^)#\s]+\.md)\),? "([^"]+)"')
BARE = re.compile(r'(?<![/\w.])((?:[\w.]+/)*[A-Z][A-Z_]*\.md),? "([^"]+)"')
SOURCES = ("*.md", "*.h", "*.cuh", "*.cu", "*.py", "*.sh")


def headings(md: pathlib.Path) -> list:
    return [m.group(1).strip() for m in re.finditer(r"^#{2,4} (.+)$", md.read_text(), re.M)]


def nearest(name: str, start: pathlib.Path, root: pathlib.Path):
    folder = start
    while True:
        if (folder / name).exists():
            return folder / name
        if folder == root:
            return None
        folder = folder.parent


def references(root: pathlib.Path):
    for pattern in SOURCES:
        for path in sorted(root.rglob(pattern)):
            rel = path.relative_to(root)
            if rel.parts[0] == "build" or any(p.startswith(".") for p in rel.parts):
                continue
            if rel.parts[0] == "tests" and path.suffix == ".py":
                continue
            text = path.read_text(errors="replace")
            for m in LINKED.finditer(text):
                yield path, (path.parent / m.group(1)).resolve(), " ".join(m.group(2).split())
            for m in BARE.finditer(text):
                yield path, nearest(m.group(1), path.parent, root), " ".join(m.group(2).split())


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent).resolve()
    found, problems = 0, []
    for source, target, section in references(root):
        found += 1
        where = source.relative_to(root)
        if target is None or not target.exists():
            problems.append(f"{where}: the file of '{section}' does not exist")
        elif not any(h.startswith(section) for h in headings(target)):
            problems.append(f"{where}: {target.relative_to(root)} has no section '{section}'")
    for p in problems:
        print(f"FAILED: {p}")
    if found == 0:
        print("FAILED: no section reference found at all (the patterns no longer match the text)")
        return 1
    if not problems:
        print(f"ok: {found} section references, each to a section that exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
