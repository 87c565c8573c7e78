#!/usr/bin/env python3
"""Figures of the mma.sync register fragments, for step 3's tensor-core primer.

usage: scripts/draw_fragments.py LAYOUTS.json OUT_DIR

LAYOUTS.json is what build/fragment_layouts prints: for each fragment its rows, columns and, per
element, the lane, register and part (fp16 half or int8 byte) that hold it, taken from the index
functions the kernels' data is laid out by (tests/fragment_layouts.cu). One PNG per fragment goes to
OUT_DIR: each element a cell, labelled T<lane> and r<register>.<part>, coloured by lane, with the
lanes of one group (lane / 4, the PTX ISA's groupID) in shades of one hue; in wgmma's warpgroup
fragment (threads 0-127) a hue per warp. The figures in
step3_w4a16/figures/ are this script's output for step3_w4a16/figures/fragments.json, which a test
keeps equal to what the code says (CTest fragment_figures_match_code).

Needs matplotlib (requirements.txt). Exit 0; 2 on bad usage; 77 without matplotlib.
"""
import json
import pathlib
import sys

from figures import matplotlib_missing, plt, save


def lane_colour(lane: int, warpgroup: bool):
    """A warp's fragment: a hue per group of 4 lanes, a shade per lane. A warpgroup's (threads
    0-127): a hue per warp, a shade per group of 4 lanes."""
    if warpgroup:
        warp, group = lane // 32, (lane % 32) // 4
        hue, shade = plt.get_cmap("tab10")(warp), 0.25 + 0.08 * group
    else:
        group, thread = divmod(lane, 4)  # 8 groups of 4 lanes: a hue per group, a shade per lane
        hue, shade = plt.get_cmap("tab10")(group % 10), 0.35 + 0.15 * thread
    return tuple(shade * c + (1 - shade) for c in hue[:3])


def draw(name: str, layout: dict, out: pathlib.Path) -> pathlib.Path:
    rows, cols, slots = layout["rows"], layout["cols"], layout["slots"]
    warpgroup = max(slot[0] for slot in slots) >= 32
    cell = 0.42 if rows > 32 else 0.62 if cols <= 16 else 0.5
    fig, ax = plt.subplots(figsize=(cols * cell + 1.2, rows * cell * 0.8 + 1.2))
    for r in range(rows):
        for c in range(cols):
            lane, reg, part = slots[r * cols + c]
            ax.add_patch(plt.Rectangle((c, r), 1, 1, facecolor=lane_colour(lane, warpgroup), edgecolor="white", linewidth=0.8))
            ax.text(c + 0.5, r + 0.36, f"T{lane}", ha="center", va="center", fontsize=6.5 if cols <= 16 else 5.5)
            ax.text(c + 0.5, r + 0.72, f"r{reg}.{part}", ha="center", va="center", fontsize=5.5 if cols <= 16 else 4.5,
                    color="#333333")
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_xticks([c + 0.5 for c in range(cols)], [str(c) for c in range(cols)], fontsize=6)
    ax.set_yticks([r + 0.5 for r in range(rows)], [str(r) for r in range(rows)], fontsize=6)
    axes = {"A": ("row (M: weight rows here)", "column (K)"), "B": ("row (K)", "column (N: tokens here)"),
            "C": ("row (M)", "column (N)")}[next(part for part in name.split("_") if part in ("A", "B", "C"))]
    ax.set_ylabel(axes[0], fontsize=8)
    ax.set_xlabel(axes[1], fontsize=8)
    ax.set_title(f"{name}: {layout['what']}", fontsize=8)
    ax.set_aspect(0.8)
    fig.tight_layout()
    return save(fig, out / f"{name}.png")


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(sys.argv) != 3:
        print("usage: scripts/draw_fragments.py LAYOUTS.json OUT_DIR", file=sys.stderr)
        return 2
    if matplotlib_missing("draw_fragments.py"):
        return 77
    layouts = json.loads(pathlib.Path(sys.argv[1]).read_text())
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name, layout in layouts.items():
        print(draw(name, layout, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
