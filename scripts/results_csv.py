"""What the scripts that read the steps' --csv output (results/<gpu>/<step>.csv) share: a cell as a
number, whether a row is a timed kernel that passed its check, and which kernels are the baselines."""
import csv
import math
import pathlib

BASELINE_PREFIX = "cublas_"  # the library baselines measured in the same run


def number(text: str) -> float:
    """The cell as a float; NaN when it holds none (a skipped kernel's "nan" or "-")."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def timed(row: dict) -> bool:
    """The kernel passed its check and has a time."""
    return row["status"] == "PASS" and math.isfinite(number(row["time_ms"]))


def read_rows(path: pathlib.Path) -> list:
    with path.open() as f:
        return list(csv.DictReader(f))
