"""What the scripts that draw PNGs share (plot_results.py, draw_fragments.py): matplotlib, optional
and headless, the line that says how to install it, and one way to save a figure."""
import pathlib

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None  # the drawing scripts say so, after --help


def matplotlib_missing(script: str) -> bool:
    """True, after saying how to install it, when matplotlib is not there (the script exits 77)."""
    if plt is None:
        print(f"{script} needs matplotlib: python3 -m venv .venv && .venv/bin/pip install -r requirements.txt")
    return plt is None


def save(fig, path: pathlib.Path) -> pathlib.Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


if __name__ == "__main__":  # a module for the other scripts; run, it says what it is
    print(__doc__.strip())
