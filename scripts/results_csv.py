"""What the scripts that read the steps' --csv output (results/<gpu>/<step>.csv) share: a cell as a
number, whether a row is a timed kernel that passed its check, which kernels are the baselines and
which are ours, and one row per kernel and case when a CSV holds repeated runs (their median)."""
import csv
import math
import pathlib
import statistics

BASELINE_PREFIX = "cublas_"  # the library baselines measured in the same run
NOT_OURS = (BASELINE_PREFIX, "quantize_a_alone")  # baselines, and step 4's quantizer timed on its own
# Step 4's kernels by the weight format they read, as llama.cpp's recorded times name it
# (results/llama_cpp_h200.csv, column "weights"): every other kernel of step 4 reads Q4_0.
STEP4_WEIGHTS = {"gemv_q4_k": "q4_k", "gemv_mma_q4_k": "q4_k", "mma_q4_k": "q4_k", "gemv_q6_k": "q6_k"}


def number(text: str) -> float:
    """The cell as a float; NaN when it holds none (a skipped kernel's "nan" or "-")."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def timed(row: dict) -> bool:
    """The kernel passed its check and has a time."""
    return row["status"] == "PASS" and math.isfinite(number(row["time_ms"]))


def our_kernel(kernel: str) -> bool:
    """One of the steps' own kernels, not a baseline nor the quantizer timed alone."""
    return not kernel.startswith(NOT_OURS)


RUN_KEY = ("step", "case", "kernel", "M", "N", "K")  # one kernel at one case: a run adds one such row


def collapse_runs(rows: list) -> list:
    """One row per RUN_KEY, in first-seen order. A CSV that several runs appended to (bench_all.sh
    with REPEAT) holds a row per run: the row kept is the one with the median time (the lower
    middle one for an even count, so every number in it is one run's), with "runs" set to their
    count. One run that did not pass makes the kernel's row that run's: a failure is never
    outvoted by the runs that passed."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in RUN_KEY), []).append(r)
    kept = []
    for runs in groups.values():
        bad = [r for r in runs if r["status"] != "PASS" or not math.isfinite(number(r["time_ms"]))]
        if bad:
            row = next((r for r in bad if r["status"] != "PASS"), bad[0])
        else:
            middle = statistics.median_low(number(r["time_ms"]) for r in runs)
            row = next(r for r in runs if number(r["time_ms"]) == middle)
        kept.append(dict(row, runs=str(len(runs))))
    return kept


def read_rows(path: pathlib.Path) -> list:
    """The CSV's rows; for a results CSV (one with the RUN_KEY columns), one per kernel and case."""
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return collapse_runs(rows) if rows and all(k in rows[0] for k in RUN_KEY) else rows


if __name__ == "__main__":  # a module for the other scripts; run, it says what it is
    print(__doc__.strip())


def step4_weights(kernel: str) -> str:
    """The weight format a step 4 kernel reads: "q4_0", "q4_k" or "q6_k"."""
    return STEP4_WEIGHTS.get(kernel, "q4_0")


def read_llama(path: pathlib.Path) -> dict:
    """llama.cpp's recorded times (results/llama_cpp_h200.csv) by (weights, M, N, K), as ints and
    the row; a file without a "weights" column holds Q4_0 times. Empty when the file is missing."""
    if not path.exists():
        return {}
    return {(r.get("weights") or "q4_0", int(r["M"]), int(r["N"]), int(r["K"])): r for r in read_rows(path)}
