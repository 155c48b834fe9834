#!/usr/bin/python3
"""Plots of a run's report directory: from report.json and trace.json, writes plots/*.png.

    reports/plots.py REPORT_DIR

timeline.png     each unit's busy and stalled slices over time (a sample of them, for long runs)
utilization.png  per unit: busy, each stall reason and idle, as stacked bars
roofline.png     each op's attained MACs per cycle against its arithmetic intensity, under the
                 roofline of the array's peak and the DRAM bandwidth, with its shape-aware bound
op_cycles.png    cycles per op, most first

The plots are written into a temporary directory and renamed to plots/ at the end, so a failed
run leaves no half-written plots. Exit status 2 with one line on stderr on bad input.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_directory import NotAPlotDirectory, publish_plots  # noqa: E402

PLOTS = ("timeline.png", "utilization.png", "roofline.png", "op_cycles.png")

STALL_COLOURS = {"semaphore_wait": "#f0a030", "queue_full": "#c05050", "dram_contention": "#8060c0",
                 "sram_bank_conflict": "#40a0a0"}
MAX_SLICES = 20000  # slices drawn on the timeline; longer runs are sampled evenly
TRACE_HEADER = '{"displayTimeUnit":"ns","traceEvents":['  # the first line of a trace npusim wrote


def read_trace(path):
    """The trace's track names and an even sample of at most 2 x MAX_SLICES of its slices. A
    trace npusim wrote holds an event a line and is read line by line, so a run of millions of
    commands is never in memory whole; any other is read as one JSON document."""
    with open(path) as f:
        if f.readline().strip() != TRACE_HEADER:
            f.seek(0)
            return json.load(f)["traceEvents"]
        # Each line starts with its event's phase: only the lines kept are parsed.
        events, slices, step, seen = [], [], 1, 0
        for line in f:
            if line.startswith('{"ph":"X"'):
                if seen % step == 0:
                    slices.append(json.loads(line.rstrip().rstrip(",")))
                seen += 1
                if len(slices) > 2 * MAX_SLICES:
                    slices, step = slices[::2], step * 2
            elif line.startswith('{"ph":"M"'):
                events.append(json.loads(line.rstrip().rstrip(",")))
        return events + slices


def timeline(trace, report, path):
    tracks = {e["tid"]: e["args"]["name"] for e in trace if e["ph"] == "M"}
    slices = [e for e in trace if e["ph"] == "X"]
    if len(slices) > MAX_SLICES:
        slices = slices[::len(slices) // MAX_SLICES + 1]
    fig, ax = plt.subplots(figsize=(12, 0.5 + 0.45 * max(len(tracks), 1)))
    order = sorted(tracks)
    for row, tid in enumerate(order):
        busy = [(e["ts"], e["dur"]) for e in slices if e["tid"] == tid and e["cat"] != "stall"]
        stalled = [(e["ts"], e["dur"]) for e in slices if e["tid"] == tid and e["cat"] == "stall"]
        ax.broken_barh(busy, (row - 0.35, 0.7), facecolors="#3070c0")
        ax.broken_barh(stalled, (row - 0.35, 0.7), facecolors="#f0a030")
    ax.set_yticks(range(len(order)), [tracks[t] for t in order])
    ax.set_xlabel("time (us)")
    ax.set_title(f"{report['model']} on {report['arch']}: busy (blue) and stalled (orange) per unit")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def utilization(report, path):
    names = list(report["units"])
    total = max(report["total_cycles"], 1)
    fig, ax = plt.subplots(figsize=(10, 0.6 + 0.5 * len(names)))
    left = [0.0] * len(names)

    def stack(values, label, colour):
        fractions = [v / total * 100 for v in values]
        ax.barh(names, fractions, left=left, label=label, color=colour)
        for i, f in enumerate(fractions):
            left[i] += f

    stack([u["busy_cycles"] for u in report["units"].values()], "busy", "#3070c0")
    for reason, colour in STALL_COLOURS.items():
        stack([u["stall_cycles"][reason] for u in report["units"].values()], reason, colour)
    stack([u["idle_cycles"] for u in report["units"].values()], "idle", "#d0d0d0")
    ax.set_xlabel("% of the run's cycles")
    ax.set_xlim(0, 100)
    ax.legend(loc="lower right", fontsize="small")
    ax.set_title("Unit utilisation and stalls")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def roofline(report, path):
    peak = report["roofline"]["peak_macs_per_cycle"]
    bandwidth = report["roofline"]["dram_bytes_per_cycle"]
    ops = [op for op in report["ops"] if op["macs"] > 0 and op["cycles"] > 0 and op["dram_bytes"] > 0]
    fig, ax = plt.subplots(figsize=(8, 6))
    if ops:
        intensity = [op["macs"] / op["dram_bytes"] for op in ops]
        attained = [op["macs"] / op["cycles"] for op in ops]
        ax.scatter(intensity, attained, color="#3070c0", zorder=3, label="attained")
        # Each op's shape-aware bound: the MACs per cycle its shape allows on this array.
        shaped = [(x, op["macs"] / op["shape_bound"]["attainable_cycles"]) for x, op in zip(intensity, ops)
                  if op.get("shape_bound", {}).get("attainable_cycles", 0) > 0]
        if shaped:
            ax.scatter([x for x, _ in shaped], [y for _, y in shaped], marker="_", s=200, color="#30a050", zorder=2,
                       label="shape-aware bound")
        for x, y, op in zip(intensity, attained, ops):
            ax.annotate(op["name"], (x, y), fontsize="x-small", xytext=(3, 3), textcoords="offset points")
        low, high = min(intensity) / 4, max(intensity) * 4
    else:
        low, high = 0.01, 100.0
    if peak > 0 and bandwidth > 0:
        ridge = peak / bandwidth
        xs = sorted({low, min(max(ridge, low), high), high})
        ax.plot(xs, [min(peak, x * bandwidth) for x in xs], color="#c05050", label="roofline")
    if ops or (peak > 0 and bandwidth > 0):
        ax.legend()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (MACs per DRAM byte)")
    ax.set_ylabel("attained MACs per cycle")
    ax.set_title("Roofline: ops of the tensor unit")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def op_cycles(report, path):
    ops = sorted((op for op in report["ops"] if op["cycles"] > 0), key=lambda op: op["cycles"], reverse=True)[:40]
    fig, ax = plt.subplots(figsize=(10, 0.6 + 0.3 * max(len(ops), 1)))
    ax.barh([op["name"] for op in ops][::-1], [op["cycles"] for op in ops][::-1], color="#3070c0")
    ax.set_xlabel("cycles")
    ax.set_title("Cycles per op" + (" (the 40 longest)" if len(report["ops"]) > 40 else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv):
    if len(argv) != 2:
        print("usage: plots.py REPORT_DIR", file=sys.stderr)
        return 2
    directory = argv[1]
    path = os.path.join(directory, "report.json")
    try:
        with open(path) as f:
            report = json.load(f)
        path = os.path.join(directory, "trace.json")
        trace = read_trace(path)
    except (OSError, ValueError) as error:
        print(f"plots: cannot read {path}: {error}", file=sys.stderr)
        return 2
    except (KeyError, TypeError):
        print(f"plots: {path} has no traceEvents", file=sys.stderr)
        return 2
    def draw(staging):
        timeline(trace, report, os.path.join(staging, "timeline.png"))
        utilization(report, os.path.join(staging, "utilization.png"))
        roofline(report, os.path.join(staging, "roofline.png"))
        op_cycles(report, os.path.join(staging, "op_cycles.png"))

    try:
        publish_plots(os.path.join(directory, "plots"), draw, PLOTS)
    except NotAPlotDirectory as error:
        print(f"plots: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
