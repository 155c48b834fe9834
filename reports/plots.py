#!/usr/bin/python3
"""Plots of a run's report directory: from report.json and trace.json, writes plots/*.png.

    reports/plots.py REPORT_DIR

timeline.png     each unit's busy and stalled fraction of each time bin, from 0 (every slice counted),
                 under the spans of the longest ops
utilization.png  per unit: busy, each stall reason and idle, as stacked bars
roofline.png     each op's attained MACs per cycle against its arithmetic intensity (MACs per
                 compulsory DRAM byte, as in the ops table), under the labelled roofline of the
                 array's peak and the DRAM bandwidth, with its shape-aware bound
op_cycles.png    cycles per op, most first (spans overlap: the plot says how much)

The plots are written into a temporary directory and renamed to plots/ at the end, so a failed
run leaves no half-written plots. Exit status 2 with one line on stderr on bad input.
"""
import json
import os
import re
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from plot_directory import NotAPlotDirectory, publish_plots  # noqa: E402

PLOTS = ("timeline.png", "utilization.png", "roofline.png", "op_cycles.png")

STALL_COLOURS = {"semaphore_wait": "#f0a030", "queue_full": "#c05050", "dram_contention": "#8060c0",
                 "sram_bank_conflict": "#40a0a0"}
BINS = 600  # time bins of the timeline: every slice counts, summed into its bins
TRACE_HEADER = '{"displayTimeUnit":"ns","traceEvents":['  # the first line of a trace npusim wrote
# A complete event as npusim writes it: its track, category, start, duration (us) and op.
SLICE = re.compile(r'^\{"ph":"X","pid":1,"tid":(\d+),"name":.*?,"cat":"([^"]*)","ts":([^,]+),"dur":([^,]+),'
                   r'"args":\{"op_id":(null|\d+)', re.M)
CHUNK_BYTES = 32 << 20


def read_trace(path):
    """The trace's track names (tid -> name) and its slices as arrays: tid, start and end (us),
    stalled (bool) and op id (-1: none). A trace npusim wrote holds an event a line and is read
    in chunks, matched line by line, so a run of millions of commands is never in memory whole
    as JSON; any other is read as one JSON document."""
    tracks, rows = {}, []
    with open(path) as f:
        if f.readline().strip() != TRACE_HEADER:
            f.seek(0)
            events = json.load(f)["traceEvents"]
            for e in events:
                if e["ph"] == "M":
                    tracks[e["tid"]] = e["args"]["name"]
                elif e["ph"] == "X":
                    op = e.get("args", {}).get("op_id")
                    rows.append((e["tid"], e["ts"], e["ts"] + e["dur"], e["cat"] == "stall", -1 if op is None else op))
            return tracks, slices_from(rows)
        tail = ""
        while True:
            chunk = f.read(CHUNK_BYTES)
            if not chunk:
                break
            text, cut = tail + chunk, (tail + chunk).rfind("\n")
            text, tail = text[:cut + 1], text[cut + 1:]
            for tid, cat, ts, dur, op in SLICE.findall(text):
                start = float(ts)
                rows.append((int(tid), start, start + float(dur), cat == "stall", -1 if op == "null" else int(op)))
            for line in text.splitlines():
                if line.startswith('{"ph":"M"'):
                    event = json.loads(line.rstrip().rstrip(","))
                    tracks[event["tid"]] = event["args"]["name"]
        return tracks, slices_from(rows)


def slices_from(rows):
    if not rows:
        return {"tid": np.zeros(0, int), "start": np.zeros(0), "end": np.zeros(0), "stalled": np.zeros(0, bool),
                "op": np.zeros(0, int)}
    tid, start, end, stalled, op = zip(*rows)
    return {"tid": np.array(tid), "start": np.array(start), "end": np.array(end), "stalled": np.array(stalled),
            "op": np.array(op)}


def binned(starts, ends, edges):
    """Time each bin of `edges` holds of the intervals [starts, ends): exact sums, not a sample."""
    covered = np.zeros(len(edges) - 1)
    width = edges[1] - edges[0]
    first = np.clip(((starts - edges[0]) // width).astype(int), 0, len(covered) - 1)
    last = np.clip(((ends - edges[0]) // width).astype(int), 0, len(covered) - 1)
    single = first == last
    np.add.at(covered, first[single], ends[single] - starts[single])
    for a, b, s, e in zip(first[~single], last[~single], starts[~single], ends[~single]):
        covered[a] += edges[a + 1] - s
        covered[a + 1:b] += width
        covered[b] += e - edges[b]
    return covered


def timeline_data(tracks, slices):
    """What the timeline draws: bin edges from 0 to the last slice's end (us), and per track the
    fraction of each bin it was busy and stalled; every slice counts."""
    end = float(slices["end"].max()) if len(slices["end"]) else 1.0
    edges = np.linspace(0.0, max(end, 1e-9), BINS + 1)
    width = edges[1] - edges[0]
    data = {}
    for tid in sorted(tracks):
        mine = slices["tid"] == tid
        busy, stalled = mine & ~slices["stalled"], mine & slices["stalled"]
        data[tid] = {"name": tracks[tid],
                     "busy": binned(slices["start"][busy], slices["end"][busy], edges) / width,
                     "stalled": binned(slices["start"][stalled], slices["end"][stalled], edges) / width}
    return edges, data


def op_bands(report, slices):
    """Each op's span on the timeline (first start, last end, us), longest first."""
    names = {op["op_id"]: op["name"] for op in report["ops"]}
    spans = []
    for op in np.unique(slices["op"][slices["op"] >= 0]):
        mine = slices["op"] == op
        spans.append((float(slices["start"][mine].min()), float(slices["end"][mine].max()), names.get(int(op), str(op))))
    return sorted(spans, key=lambda s: s[1] - s[0], reverse=True)


def timeline(tracks, slices, report, path):
    edges, data = timeline_data(tracks, slices)
    fig, ax = plt.subplots(figsize=(12, 1.6 + 0.55 * max(len(data), 1)))
    centres = (edges[:-1] + edges[1:]) / 2
    for row, (tid, d) in enumerate(data.items()):
        base = row - 0.4
        ax.fill_between(centres, base, base + 0.8 * d["busy"], step="mid", color="#3070c0", linewidth=0)
        ax.fill_between(centres, base + 0.8 * d["busy"], base + 0.8 * (d["busy"] + d["stalled"]), step="mid",
                        color="#f0a030", linewidth=0)
    # Op bands above the units: the longest ops' spans, each in the first lane free at its start
    # (ops overlap: pipelined), named inside their bar.
    lanes = []
    for start, end, name in sorted(op_bands(report, slices)[:16]):
        lane = next((i for i, last in enumerate(lanes) if last <= start), len(lanes))
        if lane == len(lanes):
            lanes.append(0.0)
        lanes[lane] = end
        y = len(data) + 0.1 + 0.45 * lane
        ax.broken_barh([(start, end - start)], (y, 0.38), facecolors="#b0b0b0", edgecolors="#707070", linewidth=0.5)
        ax.text(start, y + 0.19, " " + name, fontsize="x-small", va="center", ha="left", clip_on=True)
    ax.set_yticks(list(range(len(data))) + ([len(data) + 0.3] if lanes else []),
                  [d["name"] for d in data.values()] + (["ops (longest)"] if lanes else []))
    ax.set_xlim(0, edges[-1])
    ax.set_ylim(-0.5, len(data) + 0.1 + 0.45 * max(len(lanes), 1))
    ax.set_xlabel("time since the simulation started (us)")
    ax.set_title(f"{report['model']} on {report['arch']}: fraction of each {edges[1] - edges[0]:.3g} us busy (blue) and "
                 f"stalled (orange) per unit; all {len(slices['start']):,} slices counted",
                 fontsize="small")
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
    spans = sum(op["cycles"] for op in report["ops"])
    ax.set_title("Cycles per op" + (" (the 40 longest)" if len(ops) >= 40 else "") +
                 f"; ops overlap: their cycles add to {spans:,} of the run's {report['total_cycles']:,}", fontsize="small")
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
        tracks, slices = read_trace(path)
    except (OSError, ValueError) as error:
        print(f"plots: cannot read {path}: {error}", file=sys.stderr)
        return 2
    except (KeyError, TypeError):
        print(f"plots: {path} has no traceEvents", file=sys.stderr)
        return 2
    def draw(staging):
        timeline(tracks, slices, report, os.path.join(staging, "timeline.png"))
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
