#!/usr/bin/env python3
"""Charts from the CSVs that scripts/bench_all.sh writes, so that readers can see every ladder.

usage: scripts/plot_results.py RESULTS_DIR [OUT_DIR]

RESULTS_DIR holds one <step>.csv per step (the programs' --csv output) and run_info.txt (GPU,
CUDA, date); OUT_DIR (default RESULTS_DIR/charts) receives PNGs:
  <step>_ladder.png        per case, each kernel's speed (TFLOPS/TOPS, or GB/s for a kernel that
                           does no arithmetic), library baselines in grey, a tick at the kernel's
                           roofline (the speed at 100% in the %roof column)
  step3_w4a16_sweep.png    our best W4A16 kernel's speedup over cuBLAS HGEMM against M
  step4_w4a8_vs_llama.png  our best W4A8 kernel against llama.cpp's recorded time
                           (results/llama_cpp_h200.csv), when both exist
Needs matplotlib (requirements.txt): python3 -m venv .venv && .venv/bin/pip install -r requirements.txt
"""
import math
import pathlib
import re
import sys
import textwrap

from figures import matplotlib_missing, plt, save
from results_csv import BASELINE_PREFIX, number, our_kernel, read_llama, read_rows, step4_weights, timed

SWEEP_PREFIX = "sweep M="
SUMMIT_PREFIX = "summit "  # step 4's --summit: its shapes are in the llama.cpp chart, not the ladder


def info_for(step: str, info: str) -> str:
    """The run line(s) for a step, wrapped for a title. run_info.txt holds one line per run; a line
    that starts "steps 1, 2, 4: ..." or "step 3: ..." names the steps it holds."""
    number_of_step = re.match(r"step(\d+)", step).group(1)
    lines = []
    for line in info.splitlines():
        prefix = re.match(r"steps? ([\d, ]+): (.*)", line)
        if not prefix:
            lines.append(line)
        elif number_of_step in re.findall(r"\d+", prefix.group(1)):
            lines.append(prefix.group(2))
    return "\n".join(textwrap.fill(line, 110) for line in lines)


def by_case(rows: list) -> dict:
    """Rows grouped by case name and shape (the sweep reuses its names across shapes)."""
    cases = {}
    for r in rows:
        cases.setdefault((r["case"], r["M"], r["N"], r["K"]), []).append(r)
    return cases


def speed(r: dict):
    """(value, unit): the arithmetic rate, or GB/s for a kernel that counts no operations."""
    t = number(r["tflops"])
    if math.isfinite(t) and t > 0:
        return t, r["ops_unit"]
    return number(r["gbps"]), "GB/s"


def plot_ladder(step: str, rows: list, info: str, out: pathlib.Path) -> pathlib.Path:
    cases = {key[0]: [r for r in rs if timed(r)]
             for key, rs in by_case(rows).items() if not key[0].startswith((SWEEP_PREFIX, SUMMIT_PREFIX))}
    cases = {name: rs for name, rs in cases.items() if rs}
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 1.2 + 0.32 * sum(len(rs) for rs in cases.values()) + 0.6 * len(cases)),
                             squeeze=False)
    for ax, (name, rs) in zip(axes[:, 0], cases.items()):
        labels, values, colors, roofs = [], [], [], []
        units = set()
        for r in rs:
            value, unit = speed(r)
            units.add(unit)
            labels.append(r["kernel"])
            values.append(value)
            colors.append("0.6" if r["kernel"].startswith(BASELINE_PREFIX) else "tab:blue")
            pct = number(r["pct_roofline"])
            roofs.append(value * 100.0 / pct if math.isfinite(pct) and pct > 0 else math.nan)
        y = list(range(len(rs)))[::-1]
        ax.barh(y, values, color=colors)
        ax.scatter(roofs, y, marker="|", s=200, color="tab:red", label="roofline of that kernel", zorder=3)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel(" / ".join(sorted(units)) + " (log scale)", fontsize=8)
        first = rs[0]
        ax.set_title(f"{name}: M={first['M']} N={first['N']} K={first['K']}", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    title = f"{step}: the kernel ladder (grey: library baselines)\n{info_for(step, info)}"
    fig.suptitle(title, fontsize=8)
    height = fig.get_size_inches()[1]
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.2 + 0.14 * title.count("\n")) / height))  # room for the title
    return save(fig, out / f"{step}_ladder.png")


def plot_sweep(rows: list, info: str, out: pathlib.Path):
    points = {}  # K -> [(M, speedup)]
    for (name, *_), rs in by_case(rows).items():
        if not name.startswith(SWEEP_PREFIX):
            continue
        ours = [number(r["time_ms"]) for r in rs if not r["kernel"].startswith(BASELINE_PREFIX) and timed(r)]
        hgemm = [number(r["time_ms"]) for r in rs if r["kernel"] == "cublas_hgemm" and math.isfinite(number(r["time_ms"]))]
        if ours and hgemm:
            points.setdefault(int(rs[0]["K"]), []).append((int(rs[0]["M"]), hgemm[0] / min(ours)))
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, pts in sorted(points.items()):
        pts.sort()
        ax.plot([m for m, _ in pts], [s for _, s in pts], marker="o", label=f"N=4096, K={k}")
    ax.axhline(1.0, color="0.5", linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("M (tokens in the batch)")
    ax.set_ylabel("speedup over cuBLAS HGEMM (fp16 weights)")
    ax.set_title(f"step3_w4a16: our best W4A16 kernel against HGEMM\n{info_for('step3', info)}", fontsize=7)
    ax.legend()
    fig.tight_layout()
    return save(fig, out / "step3_w4a16_sweep.png")


def plot_llama(rows: list, llama_csv: pathlib.Path, info: str, out: pathlib.Path):
    if not llama_csv.exists():
        return None
    recorded = {key[1:]: r for key, r in read_llama(llama_csv).items() if key[0] == "q4_0"}  # the chart is Q4_0's
    best_by_shape = {}  # a shape timed in two cases (a lesson case and the summit) gets one bar, its best
    for rs in by_case(rows).values():
        shape = (int(rs[0]["M"]), int(rs[0]["N"]), int(rs[0]["K"]))
        ours = [r for r in rs if our_kernel(r["kernel"]) and timed(r) and step4_weights(r["kernel"]) == "q4_0"]
        if shape in recorded and ours:
            best = min(ours, key=lambda r: number(r["time_ms"]))
            if shape not in best_by_shape or number(best["time_ms"]) < number(best_by_shape[shape]["time_ms"]):
                best_by_shape[shape] = best
    bars = [(f"M={m}\nN={n}\nK={k}", number(b["time_ms"]) * 1e3, b["kernel"], float(recorded[(m, n, k)]["time_us"]))
            for (m, n, k), b in sorted(best_by_shape.items())]
    if not bars:
        return None
    src = next(iter(recorded.values()))
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(bars)), 4.6))
    x = range(len(bars))
    ax.bar([i - 0.2 for i in x], [b[1] for b in bars], width=0.4, label="ours (best kernel, quantizer included)")
    ax.bar([i + 0.2 for i in x], [b[3] for b in bars], width=0.4, color="0.6",
           label=f"llama.cpp (recorded: {src['gpu']}, {src['date']}, ggml {src['ggml_commit']})")
    for i, b in enumerate(bars):
        ax.text(i - 0.2, b[1], b[2], ha="center", va="bottom", fontsize=7)
    ax.set_xticks(list(x), [b[0] for b in bars], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("time per operation (µs, log scale, lower is better)")
    ax.set_title(f"step4_w4a8: Q4_0 x activations, ours against llama.cpp\n{info_for('step4', info)}", fontsize=7)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out / "step4_w4a8_vs_llama.png")


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if matplotlib_missing("plot_results.py"):
        return 77
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    results = pathlib.Path(sys.argv[1])
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else results / "charts"
    csvs = sorted(results.glob("step*.csv"))
    if not csvs:
        print(f"plot_results.py: no step*.csv in {results}")
        return 2
    info_file = results / "run_info.txt"
    info = info_file.read_text().strip() if info_file.exists() else "(no run_info.txt)"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in csvs:
        step, rows = path.stem, read_rows(path)
        written.append(plot_ladder(step, rows, info, out))
        if step == "step3_w4a16":
            written.append(plot_sweep(rows, info, out))
        if step == "step4_w4a8":
            written.append(plot_llama(rows, results.parent / "llama_cpp_h200.csv", info, out))
    for p in written:
        if p:
            print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
