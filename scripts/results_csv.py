"""What the scripts that read the steps' --csv output (results/<gpu>/<step>.csv) share: a cell as a
number, whether a row is a timed kernel that passed its check, which kernels are the baselines and
which are ours."""
import csv
import math
import pathlib

BASELINE_PREFIX = "cublas_"  # the library baselines measured in the same run
NOT_OURS = (BASELINE_PREFIX, "quantize_a_alone")  # baselines, and step 4's quantizer timed on its own


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


def read_rows(path: pathlib.Path) -> list:
    with path.open() as f:
        return list(csv.DictReader(f))


if __name__ == "__main__":  # a module for the other scripts; run, it says what it is
    print(__doc__.strip())
