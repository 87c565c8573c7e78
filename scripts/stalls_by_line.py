#!/usr/bin/env python3
"""Where a kernel's warps wait, by SASS line: Nsight Compute's warp-state samples, summed.

usage: scripts/stalls_by_line.py CSV [--top N]

CSV is Nsight Compute's source page of one profiled kernel, as CSV (plain or gzipped):
  ncu --clock-control none --kernel-name regex:NAME --launch-skip 3 --launch-count 1 \\
      --section SourceCounters --section WarpStateStats -o REPORT build/STEP ARGS...
  ncu --import REPORT.ncu-rep --page source --csv --print-source sass > CSV
Prints the samples by stall reason, by opcode (its share of the samples and of the executed
instructions, and its top three reasons), and the N lines (default 4) with the most samples, each
after the four lines before it, so that a wait shows with what it waits for. A warp spinning on an
mbarrier shows as a BRA after SYNCS.PHASECHK (ncu files it under long_scoreboard).
Exit 0; 2 on bad usage or a CSV without the samples column.
"""
import collections
import csv
import gzip
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"


def usage(message):
    print(f"stalls_by_line.py: {message} (see --help)", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    """The header and the instruction rows of the CSV (its first line names the kernel)."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        usage(f"cannot read {path}: {e}")
    for i, row in enumerate(rows):
        if SAMPLES in row:
            header = row
            return rows[:i], header, [r for r in rows[i + 1:] if len(r) == len(header)]
    usage(f"{path} has no '{SAMPLES}' column (ncu --page source --csv of a report with --section SourceCounters)")


def opcode(source):
    words = source.split()
    if words and words[0].startswith("@"):  # a predicate
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        if argv:
            print(__doc__.strip())
            sys.exit(0)
        usage("give the CSV")
    path, top = argv[0], 4
    rest = argv[1:]
    if rest:
        if rest[0] != "--top" or len(rest) != 2 or not rest[1].isdigit():
            usage("the only option is --top N")
        top = int(rest[1])
    before, header, rows = read_rows(path)
    col = {name: i for i, name in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    samples = [int(r[col[SAMPLES]] or 0) for r in rows]
    executed = [int(r[col["Instructions Executed"]] or 0) for r in rows] if "Instructions Executed" in col else [0] * len(rows)
    total, total_executed = sum(samples), sum(executed) or 1
    if total == 0:
        usage(f"{path} has no samples")
    by_reason = collections.Counter()
    by_op, op_executed = collections.Counter(), collections.Counter()
    op_reasons = collections.defaultdict(collections.Counter)
    for r, n, e in zip(rows, samples, executed):
        op = opcode(r[col["Source"]])
        by_op[op] += n
        op_executed[op] += e
        for h in reasons:
            v = int(r[col[h]] or 0)
            by_reason[h] += v
            op_reasons[op][h] += v
    pct = lambda n: f"{100 * n / total:.1f}%"
    name = before[0][1] if before and len(before[0]) > 1 else path  # the first line: "Kernel Name","void ..."
    print(f"== {name}: {total} samples, {sum(executed)} warp instructions executed")
    print("by reason: " + ", ".join(f"{h[len('stall_'):]} {pct(v)}" for h, v in by_reason.most_common(8)))
    print(f"  {'opcode':10} {'samples':>8} {'executed':>9}  top reasons (% of all samples)")
    for op, n in by_op.most_common(15):
        top3 = ", ".join(f"{h[len('stall_'):]} {100 * v / total:.1f}" for h, v in op_reasons[op].most_common(3) if v)
        print(f"  {op:10} {pct(n):>8} {100 * op_executed[op] / total_executed:8.1f}%  {top3}")
    first = int(rows[0][col["Address"]], 16) if "Address" in col else 0
    where = lambda i: f"+{int(rows[i][col['Address']], 16) - first:#06x}" if "Address" in col else f"line {i}"
    for i in sorted(sorted(range(len(rows)), key=lambda i: -samples[i])[:top]):
        print(f"-- {pct(samples[i])} of the samples at {where(i)}, executed {executed[i]} times:")
        for j in range(max(0, i - 4), i + 1):
            print(f"   {where(j)} {samples[j]:6} {rows[j][col['Source']].strip()[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
