#!/usr/bin/env python3
"""Every section the top README's course plan sends a class to exists, so that a renamed or moved
section cannot leave an instructor pointing at nothing.

usage: tests/test_course_plan.py [REPO_ROOT]      (exit 0: all found; 1: a section is missing)

The plan's "sections" column is a list separated by ';'. "step N:" switches to that step's
README.md, "FILE.md:" to a chapter beside it; an item names the start of a heading (##, ###, ####)
of the current file, and anything after it in parentheses says which part ("The ladder (04-08)").
An item that is a file name alone ("KQUANTS.md (reading)") names the whole file.

The "assign" column is checked too: each "question N" (or "questions 1-2", "questions 4, 5 and 6",
"KQUANTS.md questions 1-3") is a numbered item under the Questions heading of the lesson's step
README (or of the chapter named), and each "exercise N" has its slot, stepN_*/exercises/exN_*.
"""
import pathlib
import re
import sys

from test_section_references import headings  # the same reading of a Markdown file's headings


def plan_cells(readme: str) -> list:
    """The cells of every lesson row of the course plan: lesson, sections, run, assign, check."""
    section = readme.split("## A course plan", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.match(r"\d+\.\d+ ", cells[0]):
            rows.append(cells)
    return rows


def plan_rows(readme: str) -> list:
    """(lesson, its sections) for every row."""
    return [(cells[0], cells[1]) for cells in plan_cells(readme)]


def numbers(text: str) -> list:
    """ "1-2" -> [1, 2]; "4, 5 and 6" -> [4, 5, 6]."""
    out = []
    for part in re.split(r", | and ", text):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


def question_numbers(md: pathlib.Path) -> set:
    """The numbers of the items "N. **Title**" under md's Questions heading."""
    found, inside = set(), False
    for line in md.read_text().splitlines():
        heading = re.match(r"(#+) ", line)
        if heading:
            inside = line[heading.end():].startswith("Questions")
            continue
        item = re.match(r"(\d+)\. \*\*", line)
        if inside and item:
            found.add(int(item.group(1)))
    return found


def missing_assignments(root: pathlib.Path) -> list:
    problems = []
    assigned = re.compile(r"(?:([A-Z_]+\.md) )?(question|exercise)s? (\d+(?:-\d+)?(?:(?:, | and )\d+(?:-\d+)?)*)")
    for lesson, cell in ((c[0], c[3]) for c in plan_cells((root / "README.md").read_text()) if len(c) >= 4):
        step_dir = next(iter(sorted(root.glob(f"step{lesson.split('.')[0]}_*"))), None)
        if step_dir is None:
            problems.append(f"{lesson}: no step directory for its assignments")
            continue
        for chapter, kind, listed in assigned.findall(cell):
            for n in numbers(listed):
                if kind == "exercise":
                    if not list(step_dir.glob(f"exercises/ex{n}_*")):
                        problems.append(f"{lesson}: exercise {n}: no {step_dir.name}/exercises/ex{n}_*")
                else:
                    md = step_dir / (chapter or "README.md")
                    if not md.exists() or n not in question_numbers(md):
                        problems.append(f"{lesson}: question {n}: no such question in {md.relative_to(root)}")
    return problems


def missing_sections(root: pathlib.Path) -> list:
    problems = []
    rows = plan_rows((root / "README.md").read_text())
    if not rows:
        return ["README.md: no course plan rows found"]
    for lesson, sections in rows:
        step_dir, md = None, None
        for item in (i.strip() for i in sections.split(";")):
            step = re.match(r"step (\d+): *(.*)", item)
            if step:
                dirs = sorted(root.glob(f"step{step.group(1)}_*/README.md"))
                if not dirs:
                    problems.append(f"{lesson}: no step {step.group(1)}")
                    break
                step_dir, md, item = dirs[0].parent, dirs[0], step.group(2)
            if step_dir is None:
                problems.append(f"{lesson}: '{item}' comes before any 'step N:'")
                break
            chapter = re.match(r"([A-Z_]+\.md)(:)? *(.*)", item)
            if chapter:
                md = step_dir / chapter.group(1)
                if not md.exists():
                    problems.append(f"{lesson}: no {md.relative_to(root)}")
                    break
                if not chapter.group(2):
                    continue  # the whole file
                item = chapter.group(3)
            name = re.sub(r"\s*\(.*\)$", "", item).strip()
            if not any(h.startswith(name) for h in headings(md)):
                problems.append(f"{lesson}: {md.relative_to(root)} has no section '{name}'")
    return problems


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = missing_sections(root) + missing_assignments(root)
    for p in problems:
        print(f"FAILED: {p}")
    if not problems:
        print(f"ok: every section, question and exercise of the {len(plan_rows((root / 'README.md').read_text()))} lessons exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
