#!/usr/bin/env python3
"""Writes each step's table of speed goals (scripts/targets.txt) and where a run stands against
them, so that "met" and "missed" are generated like every other number in the lessons.

usage: scripts/update_targets.py RESULTS_DIR [README...]

RESULTS_DIR holds one <step>.csv per step (results/NVIDIA_H200). For every lesson file given
(default: every file that targets.txt names), the rows of targets.txt for that file replace the
lines between

    <!-- targets:NAME -->
    <!-- /targets -->

NAME being the results folder's name. A row names its file in its first column: a step
(step4_w4a8, its README.md) or a chapter beside the README (step4_w4a8/TENSOR_CORES.md); the
file's step, the name of its folder, says which CSV is read.
A goal met by less than NOISE (2% of its bound: about the spread of repeated runs of one binary on
the H200) reads "met within noise": one run cannot tell it from a miss. A CSV that several runs
appended to (bench_all.sh with REPEAT=3) is judged on each kernel's median run, and the table says
"median of N runs"; a run that failed its check fails the kernel (results_csv.py).
Exit 1 when a README has no such block, a step has no CSV, or a goal matches no passing row.
"""
import os
import pathlib
import re
import sys

from results_csv import number, our_kernel, read_rows, timed

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOISE = 0.02  # relative margin under which a met goal is "within noise"


def read_targets(path: pathlib.Path) -> list:
    targets = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        where, goal, rows, ours, test = (part.strip() for part in line.split("|"))
        doc = where if "/" in where else f"{where}/README.md"
        targets.append({"doc": doc, "step": doc.split("/")[0], "goal": goal, "rows": rows.split(), "ours": ours.split(),
                        "test": test.split()})
    return targets


def matches(r: dict, filters: list) -> bool:
    for f in filters:
        key, op, value = re.match(r"(case|M|N|K)(<=|=)(.*)", f).groups()
        if key == "case" and not r["case"].startswith(value):
            return False
        if key != "case" and not (int(r[key]) <= int(value) if op == "<=" else int(r[key]) == int(value)):
            return False
    return True


def duration(us: float) -> str:
    return f"{us:.1f} µs" if us < 1000 else f"{us / 1000:.2f} ms"


def is_ours(kernel: str, ours: list) -> bool:
    return kernel in ours if ours != ["*"] else our_kernel(kernel)


def judge(target: dict, rows: list) -> tuple:
    """(where, kernel, measured text, status) for the case that does worst against the goal."""
    cases = {}
    for r in rows:
        if matches(r, target["rows"]):
            cases.setdefault((r["case"], r["M"], r["N"], r["K"]), []).append(r)
    kind, bound = target["test"][0], float(target["test"][-2 if target["test"][-1] == "us" else -1])
    worst = None
    for (_, m, n, k), rs in cases.items():
        mine = [r for r in rs if timed(r) and is_ours(r["kernel"], target["ours"])]
        if not mine:
            continue
        best = min(mine, key=lambda r: number(r["time_ms"]))
        us = number(best["time_ms"]) * 1000
        runs = f" (median of {best['runs']} runs)" if int(best.get("runs", "1")) > 1 else ""
        if kind == "time":
            value, text, met = us, duration(us), us <= bound
        elif kind == "roofline":
            value = number(best["pct_roofline"])
            text, met = f"{value:.0f}%", value >= bound
        else:  # vs KERNEL
            base = [r for r in rs if timed(r) and r["kernel"] == target["test"][1]]
            if not base:
                continue
            value = number(base[0]["time_ms"]) * 1000 / us
            text, met = f"{value:.2f}x ({duration(us)} vs {duration(number(base[0]['time_ms']) * 1000)})", value >= bound
        slack = (bound - value) if kind == "time" else (value - bound)
        if worst is None or slack < worst[4]:
            worst = (f"M={m} N={n} K={k}", best["kernel"], text + runs, met, slack)
    if worst is None:
        raise SystemExit(f"update_targets.py: no passing row for '{target['goal']}' ({target['step']})")
    where, kernel, text, met, slack = worst
    status = "missed" if not met else "met within noise" if slack < NOISE * abs(bound) else "met"
    return where, kernel, text, status


def table(targets: list, rows: list) -> str:
    lines = ["| goal | case (the worst, if several) | our kernel | measured | status |", "|---|---|---|---|---|"]
    for t in targets:
        where, kernel, text, status = judge(t, rows)
        lines.append(f"| {t['goal']} | {where} | {kernel} | {text} | {status} |")
    return "\n".join(lines)


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    results = pathlib.Path(sys.argv[1])
    targets = read_targets(ROOT / "scripts" / "targets.txt")
    docs = sorted({t["doc"] for t in targets})
    readmes = [pathlib.Path(p) for p in sys.argv[2:]] or [ROOT / d for d in docs]
    name = results.resolve().name
    block = re.compile(rf"(<!-- targets:{re.escape(name)} -->\n).*?(<!-- /targets -->)", re.S)
    status = 0
    for readme in readmes:
        step = readme.resolve().parent.name
        doc = f"{step}/{readme.name}"
        csv_path = results / f"{step}.csv"
        if not csv_path.exists():
            print(f"update_targets.py: no {csv_path}")
            status = 1
            continue
        rows = read_rows(csv_path)
        text = readme.read_text()
        if not block.search(text):
            print(f"update_targets.py: {readme} has no <!-- targets:{name} --> block")
            status = 1
            continue
        shown = os.path.relpath(results.resolve(), ROOT)
        generated = (f"Generated by `scripts/update_targets.py {shown}` from `{step}.csv` and "
                     f"`scripts/targets.txt`.\n\n" + table([t for t in targets if t["doc"] == doc], rows) + "\n")
        readme.write_text(block.sub(lambda m: m.group(1) + generated + m.group(2), text))
        print(f"updated {readme}")
    return status


if __name__ == "__main__":
    sys.exit(main())
