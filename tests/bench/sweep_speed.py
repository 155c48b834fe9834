#!/usr/bin/python3
"""Sweep throughput: a ResNet-18 sweep over array size, SRAM size and DRAM bandwidth (a grid of
N values per axis, N^3 points; 10 gives the 1,000-point sweep), timing-only on the local
backend, from an empty database to the last row. Prints the wall time, points per minute, the
per-point host seconds (median and slowest, from the database) and the failed points.

  tests/bench/sweep_speed.py [--build build] [--grid 10] [--jobs N]
"""
import argparse
import json
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zoo_models

ARRAYS = (32, 48, 64, 80, 96, 128, 160, 192, 224, 256)
SRAM_KIB = (4096, 6144, 8192, 12288, 16384, 20480, 24576, 32768, 49152, 65536)
DRAM_GBPS = (51.2, 102.4, 153.6, 204.8, 256.0, 307.2, 358.4, 409.6, 512.0, 819.2)


def spread(values, count):
    """`count` of the values, evenly spread from the first to the last."""
    if count >= len(values):
        return list(values)
    return [values[round(i * (len(values) - 1) / max(1, count - 1))] for i in range(count)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", type=Path)
    parser.add_argument("--grid", default=10, type=int, help="values per axis (1..10)")
    parser.add_argument("--jobs", type=int, help="points at once (default: the number of cores)")
    args = parser.parse_args()
    npusim = (args.build / "bin" / "npusim").resolve()
    if not npusim.is_file():
        sys.exit(f"sweep_speed: no {npusim}: build the project first")
    model = zoo_models.export("resnet18", args.build / "zoo").resolve()
    arrays = spread(ARRAYS, args.grid)
    spec = {
        "models": [str(model)],
        "base": "server",
        "axes": [{"tensor.rows": arrays, "tensor.cols": arrays},
                 {"sram.size_kib": spread(SRAM_KIB, args.grid)},
                 {"dram.bandwidth_gbps": spread(DRAM_GBPS, args.grid)}],
        "timing_only": True,
    }
    with tempfile.TemporaryDirectory() as work:
        spec_path, database = Path(work) / "spec.json", Path(work) / "sweep.sqlite"
        spec_path.write_text(json.dumps(spec))
        command = [str(npusim), "sweep", str(spec_path), "--db", str(database)]
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        start = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        rows = sqlite3.connect(database).execute("SELECT status, wall_seconds FROM points").fetchall()
    seconds = [s for _, s in rows]
    failed = sum(1 for status, _ in rows if status != "ok")
    print(f"ResNet-18 sweep on server: {len(rows)} points ({len(arrays)} arrays x {args.grid} SRAM sizes x "
          f"{args.grid} DRAM bandwidths), timing-only, local backend")
    print(f"  wall {wall:.1f} s ({wall / 60:.2f} min), {len(rows) / wall * 60:.1f} points per minute, "
          f"{failed} failed, peak RSS of a process {peak:.0f} MiB")
    print(f"  per point (compile from the imported graph, simulate): median {statistics.median(seconds):.2f} s, "
          f"slowest {max(seconds):.2f} s")


if __name__ == "__main__":
    main()
