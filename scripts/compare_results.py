#!/usr/bin/env python3
"""Compares two runs kernel by kernel: did a change make anything slower, or wrong?

usage: scripts/compare_results.py OLD.csv NEW.csv [--threshold 0.05]

OLD and NEW are CSV files the step programs wrote with --csv (scripts/build_and_test.sh leaves
one in build/logs/results.csv). Rows are matched on (step, case, kernel, M, N, K). For each timed
pair it prints both median times and NEW's speed relative to OLD (1.10 = 10% faster), and flags

  SLOWER    NEW's median is more than THRESHOLD slower (default 0.05, i.e. 5%)
  FAIL      NEW's check failed (whatever OLD did)

A file that several runs appended to (bench_all.sh with REPEAT) counts as the median of its runs
(results_csv.py). Rows found in only one file are listed at the end. Exit status: 0 nothing flagged, 1 a row was
flagged, 2 bad usage or unreadable files. Compare runs on the same GPU: a different GPU is a
different experiment, and the script says so when the gpu column differs.
"""
import argparse
import csv
import math
import sys

from results_csv import RUN_KEY as KEY, collapse_runs


def usage_error(message: str) -> None:
    print(f"error: {message} (see --help)", file=sys.stderr)
    sys.exit(2)


def load(path: str) -> dict:
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        usage_error(f"cannot read {path}: {e.strerror}")
    if rows and any(k not in rows[0] for k in KEY + ("time_ms", "status", "gpu")):
        usage_error(f"{path} is not a results CSV (needs columns {', '.join(KEY)}, time_ms, status, gpu)")
    return {tuple(r[k] for k in KEY): r for r in collapse_runs(rows)}  # repeated runs: their median


def median_ms(row: dict) -> float:
    try:
        v = float(row["time_ms"])
    except ValueError:
        return math.nan
    return v if math.isfinite(v) and v > 0 else math.nan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.05, help="relative slowdown that is flagged (default 0.05)")
    args = parser.parse_args()
    if not 0 <= args.threshold < 10:
        usage_error("--threshold must be between 0 and 10")
    old, new = load(args.old), load(args.new)
    gpus = {r["gpu"] for r in old.values()} | {r["gpu"] for r in new.values()}
    if len(gpus) > 1:
        print(f"note: the files come from different GPUs ({', '.join(sorted(gpus))}): times are not comparable")

    flagged = 0
    print(f"{'step':<12} {'case':<36} {'kernel':<24} {'old ms':>10} {'new ms':>10} {'speed':>7}  flag")
    for key in sorted(old.keys() & new.keys()):
        o, n = old[key], new[key]
        t_old, t_new = median_ms(o), median_ms(n)
        speed = t_old / t_new if math.isfinite(t_old) and math.isfinite(t_new) else math.nan
        flags = []
        if n["status"] == "FAIL":
            flags.append("FAIL")
        if math.isfinite(speed) and t_new > t_old * (1 + args.threshold):
            flags.append("SLOWER")
        flagged += bool(flags)
        cell = lambda v, f: f.format(v) if math.isfinite(v) else "-"
        print(f"{key[0]:<12} {key[1][:36]:<36} {key[2][:24]:<24} {cell(t_old, '{:10.4f}'):>10} {cell(t_new, '{:10.4f}'):>10} "
              f"{cell(speed, '{:7.2f}'):>7}  {' '.join(flags)}")
    for label, only in (("only in OLD", old.keys() - new.keys()), ("only in NEW", new.keys() - old.keys())):
        for key in sorted(only):
            print(f"{label}: {' / '.join(key)}")
    print(f"{flagged} flagged (threshold {args.threshold:.0%})")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
