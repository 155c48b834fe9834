#!/usr/bin/python3
"""Plots of a run's report directory: from report.json and timeline.json, writes plots/*.png.

    reports/plots.py REPORT_DIR

timeline.png     each unit's busy and stalled fraction of each time bin, from 0 (every event
                 counted: timeline.json), under the spans of the longest ops
utilization.png  per unit: busy, each stall reason and idle, as stacked bars
roofline.png     each op's attained MACs per cycle against its arithmetic intensity (MACs per
                 compulsory DRAM byte, as in the ops table), under the labelled roofline of the
                 array's peak and the DRAM bandwidth, with its shape-aware bound
op_cycles.png    cycles per op, most first (spans overlap: the plot says how much)
tokens.png       for `npusim generate`: each step's cycles, the prefills and every decode step

The plots are written into a temporary directory and renamed to plots/ at the end, so a failed
run leaves no half-written plots. Exit status 2 with one line on stderr on bad input.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from plot_directory import NotAPlotDirectory, publish_plots  # noqa: E402

PLOTS = ("timeline.png", "utilization.png", "roofline.png", "op_cycles.png")
GENERATION_PLOTS = ("tokens.png",)  # a report of npusim generate's only

STALL_COLOURS = {"semaphore_wait": "#f0a030", "queue_full": "#c05050", "dram_contention": "#8060c0",
                 "sram_bank_conflict": "#40a0a0"}


def timeline(timeline_data, report, path):
    """`timeline_data`: timeline.json, which npusim writes beside report.json (every event of the
    run summed into time bins per unit), or None for a directory written before it existed."""
    if timeline_data is None:
        fig, ax = plt.subplots(figsize=(12, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no timeline.json in this report directory: run npusim run --report again for the timeline",
                ha="center", va="center")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        return
    units = timeline_data["units"]
    width = timeline_data["bin_us"]
    bins = timeline_data["bins"]
    centres = [(i + 0.5) * width for i in range(bins)]
    fig, ax = plt.subplots(figsize=(12, 1.6 + 0.55 * max(len(units), 1)))
    for row, unit in enumerate(units):
        base = row - 0.4
        busy = [base + 0.8 * b for b in unit["busy"]]
        both = [base + 0.8 * (b + s) for b, s in zip(unit["busy"], unit["stalled"])]
        ax.fill_between(centres, base, busy, step="mid", color="#3070c0", linewidth=0)
        ax.fill_between(centres, busy, both, step="mid", color="#f0a030", linewidth=0)
    # Op bands above the units: the longest ops' spans, each in the first lane free at its start
    # (ops overlap: pipelined), named inside their bar.
    longest = sorted(timeline_data["ops"], key=lambda op: op["end_us"] - op["start_us"], reverse=True)[:16]
    lanes, keyed = [], []
    for op in sorted(longest, key=lambda op: op["start_us"]):
        lane = next((i for i, last in enumerate(lanes) if last <= op["start_us"]), len(lanes))
        if lane == len(lanes):
            lanes.append(0.0)
        lanes[lane] = op["end_us"]
        y = len(units) + 0.1 + 0.45 * lane
        ax.broken_barh([(op["start_us"], op["end_us"] - op["start_us"])], (y, 0.38), facecolors="#b0b0b0",
                       edgecolors="#707070", linewidth=0.5)
        # The name where it fits in the bar (about 150 characters span the axis), else a number
        # the key below the plot names.
        room = int((op["end_us"] - op["start_us"]) / (bins * width) * 150) - 1
        if len(op["name"]) <= room:
            label = op["name"]
        else:
            keyed.append(op["name"])
            label = str(len(keyed))
        ax.text(op["start_us"], y + 0.19, " " + label, fontsize="x-small", va="center", ha="left", clip_on=True)
    ax.set_yticks(list(range(len(units))) + ([len(units) + 0.3] if lanes else []),
                  [unit["name"] for unit in units] + (["ops (longest)"] if lanes else []))
    job_start = timeline_data.get("job_start_us", 0)
    if job_start > 0:
        # Before the job: the driver loads the model and copies the inputs in; no unit is busy
        # on the job's behalf, and the report's cycles start at its end.
        ax.axvspan(0, job_start, color="#e8e8e8", zorder=0)
        ax.text(job_start / 2, -0.45, "before the job (load, inputs)", fontsize="x-small", ha="center", va="bottom")
        ax.axvline(job_start, color="#707070", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, bins * width)
    ax.set_ylim(-0.5, len(units) + 0.1 + 0.45 * max(len(lanes), 1))
    ax.set_xlabel("time since the simulation started (us)")
    ax.set_title(f"{report['model']} on {report['arch']}: fraction of each {width:.3g} us busy (blue) and stalled "
                 f"(orange, any reason) per unit, every event counted", fontsize="small")
    if keyed:
        key = "   ".join(f"{i}: {name}" for i, name in enumerate(keyed, 1))
        fig.text(0.01, 0.01, "ops: " + key, fontsize="x-small", wrap=True, va="bottom")
        fig.tight_layout(rect=(0, 0.04 + 0.025 * (len(key) // 180), 1, 1))
    else:
        fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def utilization(report, path):
    names = list(report["units"])
    total = max(report["total_cycles"], 1)
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.5 * len(names)))
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
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # beside the bars, not over them
    ax.set_title("Unit utilisation and stalls")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def roofline(report, path):
    """Intensity is the ops table's: MACs per compulsory DRAM byte (min_dram_bytes)."""
    peak = report["roofline"]["peak_macs_per_cycle"]
    bandwidth = report["roofline"]["dram_bytes_per_cycle"]
    ops = [op for op in report["ops"] if op["macs"] > 0 and op["cycles"] > 0 and op["intensity"] > 0]
    fig, ax = plt.subplots(figsize=(9, 6.5))
    if ops:
        intensity = [op["intensity"] for op in ops]
        attained = [op["macs"] / op["cycles"] for op in ops]
        ax.scatter(intensity, attained, color="#3070c0", zorder=3, label="op: attained MACs per cycle")
        # Each op's shape-aware bound: the MACs per cycle its shape allows on this array.
        shaped = [(x, op["macs"] / op["shape_bound"]["attainable_cycles"]) for x, op in zip(intensity, ops)
                  if op.get("shape_bound", {}).get("attainable_cycles", 0) > 0]
        if shaped:
            ax.scatter([x for x, _ in shaped], [y for _, y in shaped], marker="_", s=200, color="#30a050", zorder=2,
                       label="op: shape-aware bound")
        # Names for the ops that take longest only: labels of every op clump on big models.
        longest = sorted(range(len(ops)), key=lambda i: ops[i]["cycles"], reverse=True)[:10]
        for rank, i in enumerate(longest):
            ax.annotate(ops[i]["name"], (intensity[i], attained[i]), fontsize="x-small",
                        xytext=(4, 4 + 7 * (rank % 3)), textcoords="offset points")
        low, high = min(intensity) / 4, max(intensity) * 4
        bottom = min(min(attained), min(y for _, y in shaped) if shaped else min(attained)) / 4
    else:
        low, high, bottom = 0.01, 100.0, 0.01
    if peak > 0 and bandwidth > 0:
        ridge = peak / bandwidth
        low, high = min(low, ridge / 4), max(high, ridge * 4)
        xs = [low, ridge, high]
        ax.plot(xs, [min(peak, x * bandwidth) for x in xs], color="#c05050", label="roofline (plain bound)")
        ax.annotate(f"peak {peak:g} MACs/cycle", (high, peak), xytext=(-4, 4), textcoords="offset points", ha="right",
                    fontsize="small", color="#c05050")
        ax.annotate(f"DRAM {bandwidth:.3g} bytes/cycle", (low, low * bandwidth), xytext=(4, 6), textcoords="offset points",
                    fontsize="small", color="#c05050", rotation=30)
        ax.axvline(ridge, color="#c05050", linestyle=":", linewidth=1)
        ax.annotate(f"ridge {ridge:.3g} MACs/byte", (ridge, bottom), xytext=(4, 4), textcoords="offset points",
                    fontsize="small", color="#c05050")
        bottom = min(bottom, low * bandwidth)
        ax.set_ylim(bottom, peak * 3)
    ax.legend(loc="lower right", fontsize="small")
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10, numticks=12))
        axis.set_minor_locator(LogLocator(base=10, subs=(2, 5), numticks=12))
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_xlabel("arithmetic intensity (MACs per compulsory DRAM byte, as in the ops table)")
    ax.set_ylabel("MACs per cycle")
    ax.set_title("Roofline: the tensor unit's ops against the plain and the shape-aware bound")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def op_cycles(report, path):
    ops = sorted((op for op in report["ops"] if op["cycles"] > 0), key=lambda op: op["cycles"], reverse=True)[:40]
    fig, ax = plt.subplots(figsize=(10, 0.6 + 0.3 * max(len(ops), 1)))
    ax.barh([op["name"] for op in ops][::-1], [op["cycles"] for op in ops][::-1], color="#3070c0")
    ax.set_xlabel("cycles (an op's first command to its last)")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    spans = sum(op["cycles"] for op in report["ops"])
    ax.set_title("Cycles per op" + (" (the 40 longest)" if len(ops) >= 40 else "") +
                 f"; ops overlap: their cycles add to {spans:,} of the run's {report['total_cycles']:,}", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def tokens(generation, path):
    steps = generation["steps"]
    fig, ax = plt.subplots(figsize=(10, 3.5))
    colours = ["#c05050" if step["phase"] == "prefill" else "#3070c0" for step in steps]
    ax.bar(range(len(steps)), [step["cycles"] for step in steps], color=colours, width=0.9)
    roofline = generation["decode_roofline"]["memory_cycles"]
    ax.axhline(roofline, color="#40a040", linewidth=1, label=f"decode memory roofline ({roofline:,} cycles)")
    ax.set_xlabel("step (red: a prefill, its first token; blue: a decode step, a token per sequence)")
    ax.set_ylabel("cycles, host to host")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    ax.set_yscale("log")
    ax.legend(fontsize="small")
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
        path = os.path.join(directory, "timeline.json")
        timeline_data = None
        if os.path.exists(path):
            with open(path) as f:
                timeline_data = json.load(f)
    except (OSError, ValueError) as error:
        print(f"plots: cannot read {path}: {error}", file=sys.stderr)
        return 2
    def draw(staging):
        timeline(timeline_data, report, os.path.join(staging, "timeline.png"))
        utilization(report, os.path.join(staging, "utilization.png"))
        roofline(report, os.path.join(staging, "roofline.png"))
        op_cycles(report, os.path.join(staging, "op_cycles.png"))
        if report.get("generation"):
            tokens(report["generation"], os.path.join(staging, "tokens.png"))

    try:
        publish_plots(os.path.join(directory, "plots"), draw, PLOTS + GENERATION_PLOTS)
    except NotAPlotDirectory as error:
        print(f"plots: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
