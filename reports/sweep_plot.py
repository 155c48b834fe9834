#!/usr/bin/python3
"""Plots of a sweep database (npusim sweep): writes OUT_DIR/pareto.png, pareto.json and
sensitivity.png.

    reports/sweep_plot.py SWEEP_DB OUT_DIR

pareto.png       per model: every design point's cycles against its area and against its
                 energy, each Pareto front (no other point is both faster and smaller, or
                 faster and more frugal) drawn and labelled, the points no other point beats on
                 all three (cycles, energy, area) ringed
pareto.json      per model, those fronts: `cycles_area`, `cycles_energy`, `cycles_energy_area`,
                 each a list of points (key, params, total_cycles, energy_pj, area_mm2), and
                 `area`: "mm2", or "proxy" when area_mm2 holds the proxy below
sensitivity.png  per axis of the sweep: each model's cycles at each value of the axis (the
                 mean over the other axes), relative to the model's mean over the sweep

Area is the arch config's chip area in mm2 (docs/ARCH_CONFIG.md), energy the run's (dynamic
and leakage). Points written before npusim recorded them hold 0 for both: a model with such a
point is ranked by a proxy area in PE equivalents (a processing element counts 1, a KiB of SRAM
AREA_PER_SRAM_KIB), and by energy over its points that have one (none: no energy front).

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


def has_area(rows):
    return all(r["area_mm2"] > 0 for r in rows)


def area(row, measured=True):
    return row["area_mm2"] if measured else row["pe_count"] + AREA_PER_SRAM_KIB * row["sram_bytes"] / 1024


def energy(row):
    return row["energy_pj"]


def dominates(a, b, costs):
    """Whether point a is no worse than b on every cost and better on one."""
    return all(c(a) <= c(b) for c in costs) and any(c(a) < c(b) for c in costs)


def pareto_front(points, costs):
    """The points no other point dominates on `costs` (functions of a point), by the first cost."""
    front = [p for p in points if not any(dominates(q, p, costs) for q in points)]
    return sorted(front, key=lambda p: tuple(c(p) for c in costs))


def cycles(row):
    return row["total_cycles"]


def label(row):
    params = json.loads(row["params"])
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in params.items()) or row["preset"]


def fronts(rows):
    """Per model: whether its area is measured, and its cycles x area, cycles x energy and
    cycles x energy x area fronts. A model some of whose points predate the energy model is
    ranked by the area proxy, and by energy over the points that have one."""
    result = {}
    for model in sorted({r["model"] for r in rows}):
        points = [r for r in rows if r["model"] == model]
        measured = has_area(points)
        size = lambda p, measured=measured: area(p, measured)  # noqa: E731
        sets = {"cycles_area": pareto_front(points, (size, cycles))}
        with_energy = [p for p in points if energy(p) > 0]
        if with_energy:
            sets["cycles_energy"] = pareto_front(with_energy, (energy, cycles))
            sets["cycles_energy_area"] = pareto_front(with_energy, (cycles, energy, size))
        result[model] = (measured, sets)
    return result


def pareto_json(rows, path):
    def point(p, measured):
        return {"key": p["key"], "params": json.loads(p["params"]), "total_cycles": p["total_cycles"],
                "energy_pj": p["energy_pj"], "area_mm2": area(p, measured)}
    with open(path, "w") as out:
        json.dump({model: {"area": "mm2" if measured else "proxy",
                           **{name: [point(p, measured) for p in front] for name, front in sets.items()}}
                   for model, (measured, sets) in fronts(rows).items()}, out, indent=1)


def pareto(rows, path):
    models = fronts(rows)
    fig, axes = plt.subplots(2, len(models), figsize=(6.5 * len(models), 9), squeeze=False)
    for column, (model, (measured, sets)) in enumerate(models.items()):
        points = [r for r in rows if r["model"] == model]
        everywhere = {p["key"] for p in sets.get("cycles_energy_area", [])}
        panels = [("cycles_area", lambda p: area(p, measured),
                   "area (mm2)" if measured else f"area proxy (PE equivalents: PEs + {AREA_PER_SRAM_KIB:g} x SRAM KiB)"),
                  ("cycles_energy", lambda p: energy(p) / 1e6, "energy per inference (uJ)")]
        for row, (name, x, xlabel) in enumerate(panels):
            ax = axes[row][column]
            ax.set_title(model)
            if name not in sets:
                ax.text(0.5, 0.5, "energy not recorded (a database older than the energy model)", ha="center", va="center")
                ax.set_axis_off()
                continue
            ax.scatter([x(p) for p in points], [cycles(p) for p in points], color="#a0a0a0", label="design points")
            ringed = [p for p in points if p["key"] in everywhere]
            if ringed:
                ax.scatter([x(p) for p in ringed], [cycles(p) for p in ringed], s=120, facecolors="none",
                           edgecolors="#3060a0", label="not beaten on cycles, energy and area")
            front = sets[name]
            ax.plot([x(p) for p in front], [cycles(p) for p in front], "o-", color="#c05050", label="Pareto front")
            for p in front:
                ax.annotate(label(p), (x(p), cycles(p)), fontsize="x-small", xytext=(4, 4), textcoords="offset points")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("cycles")
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
        for row in rows:  # a database written before the energy model
            for column in ("energy_pj", "area_mm2"):
                row.setdefault(column, 0)
    except sqlite3.Error as error:
        print(f"sweep_plot: cannot read the sweep database {database}: {error}", file=sys.stderr)
        return 2
    if not rows:
        print(f"sweep_plot: {database} holds no finished point", file=sys.stderr)
        return 2
    def draw(staging):
        pareto(rows, os.path.join(staging, "pareto.png"))
        pareto_json(rows, os.path.join(staging, "pareto.json"))
        sensitivity(rows, os.path.join(staging, "sensitivity.png"))

    try:
        publish_plots(out, draw, ("pareto.png", "pareto.json", "sensitivity.png"))
    except NotAPlotDirectory as error:
        print(f"sweep_plot: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
