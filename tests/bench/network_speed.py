#!/usr/bin/python3
"""Whole-network simulation speed: each model compiled once per preset, then `sim_speed network`
run on the artifact (timing-only and full) with the inputs torch exported, phase by phase: reading the artifact, elaborating,
the run, report.json and trace.json. Medians of several runs, side by side in one process tree,
with the peak RSS of each run. The models are exported from torch like the model zoo's. "math" is
the host seconds the units spent computing values (inside "run"; none when timing only). A full
run's "x timing" is its load-to-run host time (load, elaborate, run) less the math, over the
timing-only run's: moving the values should cost at most as much again as the timing.

  tests/bench/network_speed.py [--build build] [--models a,b] [--presets p,q] [--runs 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import zoo_models

PRESETS = ("tiny", "edge", "mobile", "server")
MODELS = ("resnet18", "mobilenet_v2", "gpt_decoder")
PHASES = ("load_seconds", "elaborate_seconds", "run_seconds", "compute_seconds", "report_seconds", "total_seconds")


def run_once(sim_speed, artifact, inputs, timing_only):
    """One sim_speed run: its key=value figures (its peak RSS among them)."""
    command = [str(sim_speed), "network", str(artifact), "--inputs", str(inputs)] + (["--timing-only"] if timing_only else [])
    out = subprocess.run(command, check=True, capture_output=True, text=True,
                         env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")).stdout
    return dict(field.split("=", 1) for field in out.split() if "=" in field)


def median_figures(runs):
    """Each numeric figure's median over the runs; the others from the first run."""
    merged = dict(runs[0])
    for key, value in runs[0].items():
        try:
            float(value)
        except (TypeError, ValueError):
            continue
        merged[key] = statistics.median(float(run[key]) for run in runs)
    return merged


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", type=Path)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--runs", default=3, type=int)
    args = parser.parse_args()
    npusim, sim_speed = args.build / "bin" / "npusim", args.build / "bin" / "sim_speed"
    for tool in (npusim, sim_speed):
        if not tool.is_file():
            sys.exit(f"network_speed: no {tool}: build the project first")
    print(f"whole-network simulation speed, median of {args.runs} runs, host seconds per phase")
    header = ("model", "preset", "mode", "cycles", "commands", "bursts", "load", "elab", "run", "math", "report", "total",
              "Mcyc/s", "Mburst/s", "RSS MiB", "x timing")
    print("  " + " ".join(f"{h:>12}" if i > 2 else f"{h:<13}" for i, h in enumerate(header)))
    with tempfile.TemporaryDirectory() as work:
        for model in args.models.split(","):
            onnx = zoo_models.export(model, args.build / "zoo")
            for preset in args.presets.split(","):
                artifact = Path(work) / f"{model}.{preset}.npuart"
                compiled = subprocess.run([str(npusim), "compile", str(onnx), "--arch", preset, "-o", str(artifact)],
                                          capture_output=True, text=True)
                if compiled.returncode != 0:
                    print(f"  {model:<13} {preset:<13} does not compile: {compiled.stderr.strip()}")
                    continue
                simulated = {}  # host seconds from load to the end of the run less the math, per mode
                for timing_only in (True, False):
                    runs = [run_once(sim_speed, artifact, onnx.parent / "inputs", timing_only) for _ in range(args.runs)]
                    f = median_figures(runs)
                    simulated[timing_only] = f["load_seconds"] + f["elaborate_seconds"] + f["run_seconds"] - f["compute_seconds"]
                    ratio = "" if timing_only else f"{simulated[False] / simulated[True]:.2f}"
                    row = [model, preset, f["mode"], f"{f['cycles']:.0f}", f"{f['commands']:.0f}",
                           f"{f['dram_transactions']:.0f}"] + [f"{f[p]:.3f}" for p in PHASES] + [
                        f"{f['mcycles_per_second']:.2f}", f"{f['mtransactions_per_second']:.2f}", f"{f['peak_rss_mib']:.0f}", ratio]
                    print("  " + " ".join(f"{v:>12}" if i > 2 else f"{v:<13}" for i, v in enumerate(row)), flush=True)


if __name__ == "__main__":
    main()
