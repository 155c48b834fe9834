#!/usr/bin/python3
"""Plots of a sweep database (npusim sweep): writes OUT_DIR/pareto.png and sensitivity.png.

    reports/sweep_plot.py SWEEP_DB OUT_DIR

pareto.png       per model: every design point's cycles against its area proxy, the Pareto
                 front (no other point is both faster and smaller) drawn and labelled
sensitivity.png  per axis of the sweep: each model's cycles at each value of the axis (the
                 mean over the other axes), relative to the model's mean over the sweep

Area proxy, in PE equivalents: a processing element of the tensor array counts 1, a KiB of
SRAM counts AREA_PER_SRAM_KIB (an int8 MAC with its registers is about a quarter of the area of
a KiB of 6T SRAM with its periphery); a rough figure for ranking design points, not a floorplan.

Only points with status ok are plotted. Exit status 2 with one line on stderr when the
database cannot be read; the PNGs are written into a temporary directory and renamed
(plot_directory.py).
"""
import json
import os
import sqlite3
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_directory import NotAPlotDirectory, publish_plots  # noqa: E402

AREA_PER_SRAM_KIB = 4.0


def area(row):
    return row["pe_count"] + AREA_PER_SRAM_KIB * row["sram_bytes"] / 1024


def pareto_front(points):
    """The points no other point beats on both cycles and area, by increasing area."""
    front, best = [], None
    for p in sorted(points, key=lambda p: (area(p), p["total_cycles"])):
        if best is None or p["total_cycles"] < best:
            front.append(p)
            best = p["total_cycles"]
    return front


def label(row):
    params = json.loads(row["params"])
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in params.items()) or row["preset"]


def pareto(rows, path):
    models = sorted({r["model"] for r in rows})
    fig, axes = plt.subplots(1, len(models), figsize=(6.5 * len(models), 5), squeeze=False)
    for ax, model in zip(axes[0], models):
        points = [r for r in rows if r["model"] == model]
        ax.scatter([area(p) for p in points], [p["total_cycles"] for p in points], color="#a0a0a0", label="design points")
        front = pareto_front(points)
        ax.plot([area(p) for p in front], [p["total_cycles"] for p in front], "o-", color="#c05050", label="Pareto front")
        for p in front:
            ax.annotate(label(p), (area(p), p["total_cycles"]), fontsize="x-small", xytext=(4, 4), textcoords="offset points")
        ax.set_xlabel(f"area proxy (PE equivalents: PEs + {AREA_PER_SRAM_KIB:g} x SRAM KiB)")
        ax.set_ylabel("cycles")
        ax.set_title(model)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def sensitivity(rows, path):
    axes_values = defaultdict(set)
    for r in rows:
        for key, value in json.loads(r["params"]).items():
            axes_values[key].add(json.dumps(value))
    names = sorted(k for k, values in axes_values.items() if len(values) > 1)
    fig, axes = plt.subplots(1, max(len(names), 1), figsize=(5 * max(len(names), 1), 4), squeeze=False)
    if not names:
        axes[0][0].text(0.5, 0.5, "the sweep has no axis with two values or more", ha="center", va="center")
        axes[0][0].set_axis_off()
    for ax, name in zip(axes[0], names):
        values = sorted(axes_values[name], key=lambda v: (isinstance(json.loads(v), str), json.loads(v)))
        for model in sorted({r["model"] for r in rows}):
            points = [r for r in rows if r["model"] == model]
            mean = sum(p["total_cycles"] for p in points) / len(points)
            ys = []
            for v in values:
                at = [p["total_cycles"] for p in points if json.dumps(json.loads(p["params"]).get(name)) == v]
                ys.append(sum(at) / len(at) / mean if at else float("nan"))
            ax.plot(range(len(values)), ys, "o-", label=model)
        ax.set_xticks(range(len(values)), [json.loads(v) for v in values])
        ax.axhline(1.0, color="#d0d0d0", linewidth=0.8)
        ax.set_xlabel(name)
        ax.set_ylabel("cycles / model's mean")
        ax.legend(fontsize="small")
    fig.suptitle("Sensitivity of cycles to each axis (mean over the other axes)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        print("usage: sweep_plot.py SWEEP_DB OUT_DIR", file=sys.stderr)
        return 2
    database, out = argv[1], argv[2]
    if not os.path.isfile(database):
        print(f"sweep_plot: {database} is not a sweep database", file=sys.stderr)
        return 2
    try:
        connection = sqlite3.connect(database)
        connection.row_factory = sqlite3.Row
        rows = [dict(r) for r in connection.execute("SELECT * FROM points WHERE status = 'ok'")]
        connection.close()
    except sqlite3.Error as error:
        print(f"sweep_plot: cannot read the sweep database {database}: {error}", file=sys.stderr)
        return 2
    if not rows:
        print(f"sweep_plot: {database} holds no finished point", file=sys.stderr)
        return 2
    def draw(staging):
        pareto(rows, os.path.join(staging, "pareto.png"))
        sensitivity(rows, os.path.join(staging, "sensitivity.png"))

    try:
        publish_plots(out, draw, ("pareto.png", "sensitivity.png"))
    except NotAPlotDirectory as error:
        print(f"sweep_plot: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
