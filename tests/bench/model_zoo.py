#!/usr/bin/python3
"""Real networks through npusim, per model and preset, measured side by side in one run.

Exports each architecture of tests/bench/zoo_models.py (seeded random weights, torch.onnx.export),
compiles it with `npusim compile` (at each of --precisions; int8 calibrated on 8 seeded input sets
of the model's own distribution) and runs the artifact with torch's
inputs, comparing with torch's outputs. Prints per model, preset and precision: compile seconds
and peak RSS, commands and command bytes, cycles, efficiency against the roofline and against
the shape-aware bound (report.json's `roofline`), DRAM bytes moved, energy per inference and
TOPS/W (report.json's `energy`, the preset's energy table), run host seconds and peak
RSS, the max error against torch (relative to the output's largest magnitude) and the lowest
cosine similarity of an output with torch's. Each row also says whether the run beat a bound, and with --per-op
(each run's report is written) which ops did (`bound_violations` in --json; a bound no schedule
can beat, beaten, is a wrong bound). Figures, not assertions: a failure is a row that
says what npusim printed.

    tests/bench/model_zoo.py [--build DIR] [--cache DIR] [--presets tiny,edge,...] [--models a,b]
                             [--precisions fp32,bf16,fp16,int8] [--timing-only] [--per-op] [--json FILE]
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zoo_models  # noqa: E402

PRESETS = ["tiny", "edge", "mobile", "server"]
# One process may take this much address space: a runaway plan fails instead of taking the machine.
ADDRESS_LIMIT = 12 << 30


def child_peak_rss(command, timeout):
    """Runs a command under the address limit in a fresh Python child (so RUSAGE_CHILDREN's maximum
    is this command's alone); returns [returncode, stdout, stderr, seconds, peak RSS in MiB]."""
    probe = ("import json,resource,subprocess,sys,time\n"
             "limit=int(sys.argv[1]); timeout=float(sys.argv[2]); command=sys.argv[3:]\n"
             "def lim(): resource.setrlimit(resource.RLIMIT_AS,(limit,limit))\n"
             "start=time.perf_counter()\n"
             "try:\n"
             "    p=subprocess.run(command,capture_output=True,text=True,preexec_fn=lim,timeout=timeout)\n"
             "    rc,out,err=p.returncode,p.stdout,p.stderr\n"
             "except subprocess.TimeoutExpired as e:\n"
             "    rc,out,err=-1,'',f'timed out after {timeout:.0f} s'\n"
             "s=time.perf_counter()-start\n"
             "rss=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024\n"
             "print(json.dumps([rc,out,err,s,rss]))\n")
    result = subprocess.run([sys.executable, "-c", probe, str(ADDRESS_LIMIT), str(timeout), *map(str, command)],
                            capture_output=True, text=True)
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:  # the probe itself failed (the command could not start): say why
        return [-1, "", result.stderr or "the measuring child printed nothing", 0.0, 0.0]


def first_error_line(stderr):
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(no message)"


def errors(outputs, expected):
    """Largest |npusim - torch| over every output, relative to the output's largest magnitude,
    and the lowest cosine similarity of an output with torch's."""
    worst, cosine = 0.0, 1.0
    for reference in sorted(expected.glob("*.npy")):
        got = np.load(outputs / reference.name).astype(np.float64).ravel()
        want = np.load(reference).astype(np.float64).ravel()
        scale = max(float(np.max(np.abs(want))), 1e-12)
        worst = max(worst, float(np.max(np.abs(got - want))) / scale)
        norms = float(np.linalg.norm(got) * np.linalg.norm(want))
        cosine = min(cosine, float(np.dot(got, want)) / norms if norms > 0 else float(np.array_equal(got, want)))
    return worst, cosine


def command_bytes(npusim, artifact):
    manifest = json.loads(subprocess.run([npusim, "inspect", artifact, "--json"], capture_output=True, text=True,
                                         check=True).stdout)
    return sum(s["size"] for s in manifest["sections"] if s["name"].startswith("commands"))


def measure(npusim, model_path, preset, precision, work, timing_only, timeout, per_op):
    row = {"preset": preset, "precision": precision}
    artifact = work / f"{model_path.stem}.{preset}.{precision}.npuart"
    calibration = ["--calibrate-inputs", zoo_models.calibration_sets(model_path)] if precision == "int8" else []
    rc, out, err, seconds, rss = child_peak_rss([npusim, "compile", model_path, "--arch", preset, "--precision", precision,
                                                 *calibration, "-o", artifact], timeout)
    row.update(compile_s=seconds, compile_rss_mib=rss)
    if rc != 0:
        row["error"] = "compile: " + first_error_line(err)
        return row
    commands = re.search(r"\((\d+) commands", err)
    row["commands"] = int(commands.group(1)) if commands else None
    row["command_bytes"] = command_bytes(npusim, artifact)
    root = model_path.parent
    outputs = work / f"{model_path.stem}.{preset}.out"
    report = work / f"{model_path.stem}.{preset}.report"
    run = [npusim, "run", artifact, "--inputs", root / "inputs"] + (["--report", report] if per_op else [])
    run += ["--timing-only"] if timing_only else ["--outputs", outputs]
    rc, out, err, seconds, rss = child_peak_rss(run, timeout)
    row.update(run_s=seconds, run_rss_mib=rss)
    artifact.unlink(missing_ok=True)
    if rc != 0:
        row["error"] = "run: " + first_error_line(err)
        return row
    summary = re.search(r": (\d+) cycles .*roofline efficiency ([\d.]+)% \(shape-aware ([\d.]+)%\)", out)
    row["cycles"] = int(summary.group(1))
    row["efficiency"] = float(summary.group(2)) / 100
    row["shape_efficiency"] = float(summary.group(3)) / 100
    dram = re.search(r"DRAM: (\d+) bytes read, (\d+) written", out)
    row["dram_bytes"] = int(dram.group(1)) + int(dram.group(2))
    energy = re.search(r"energy: ([\d.]+) (pJ|nJ|uJ|mJ|J) \(([\d.]+) W average.*?(?:, ([\d.]+) TOPS/W)?$", out, re.M)
    scale = {"pJ": 1e-6, "nJ": 1e-3, "uJ": 1, "mJ": 1e3, "J": 1e6}
    row["energy_uj"] = float(energy.group(1)) * scale[energy.group(2)]
    row["average_w"] = float(energy.group(3))
    row["tops_per_watt"] = float(energy.group(4)) if energy.group(4) else None
    # Ops and runs that took fewer cycles than a bound allows: a bound that is wrong.
    row["bound_violations"] = ["the run"] if max(row["efficiency"], row["shape_efficiency"]) > 1 else []
    if per_op:
        ops = json.loads((report / "report.json").read_text())["ops"]
        shutil.rmtree(report)
        row["bound_violations"] += [op["name"] for op in ops if op["bound"] != "host" and op["cycles"] > 0 and
                                    max(op["attainable_cycles"], op["shape_bound"]["attainable_cycles"]) > op["cycles"]]
    if not timing_only:
        row["max_error"], row["cosine"] = errors(outputs, root / "expected")
    return row


def print_row(name, row):
    if "error" in row:
        print(f"{name:<20} {row['preset']:<7} {row['precision']:<5} {row['compile_s']:7.1f} {row['compile_rss_mib']:7.0f}  "
              f"{row['error']}")
        return
    error = f"{row['max_error']:9.1e} {row['cosine']:9.6f}" if "max_error" in row else "        -         -"
    print(f"{name:<20} {row['preset']:<7} {row['precision']:<5} {row['compile_s']:7.1f} {row['compile_rss_mib']:7.0f} "
          f"{row['commands']:>9} {row['command_bytes'] / 2**20:8.2f} {row['cycles']:>12} {row['efficiency']:6.1%} "
          f"{row['shape_efficiency']:6.1%} {row['dram_bytes'] / 2**20:9.1f} {row['energy_uj']:10.1f} "
          f"{row['tops_per_watt'] or 0:6.2f} {row['run_s']:6.1f} {row['run_rss_mib']:6.0f} {error}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", type=Path)
    parser.add_argument("--cache", default=None, type=Path, help="where exported models are kept (default BUILD/zoo)")
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--models", default=",".join(zoo_models.MODELS))
    parser.add_argument("--precisions", default="fp32", help="compile --precision values, each a row")
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--per-op", action="store_true",
                        help="also write each run's report and list every op that beats a bound (more memory)")
    parser.add_argument("--timeout", default=600, type=float, help="seconds per npusim call")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    npusim = (args.build / "bin" / "npusim").resolve()
    cache = args.cache or args.build / "zoo"
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in zoo_models.MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]}; the zoo has {', '.join(zoo_models.MODELS)}")
    print(f"{'model':<20} {'preset':<7} {'prec':<5} {'comp s':>7} {'c MiB':>7} {'commands':>9} {'cmd MiB':>8} "
          f"{'cycles':>12} {'eff':>6} {'shape':>6} {'DRAM MiB':>9} {'energy uJ':>10} {'TOPS/W':>6} {'run s':>6} {'r MiB':>6} "
          f"{'max err':>9} {'cosine':>9}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="npusim_zoo_") as tmp:
        for name in names:
            try:
                model_path = zoo_models.export(name, cache)
            except Exception as error:  # an exporter failure is a row, not the end of the table
                print(f"{name:<20} export failed: {str(error).splitlines()[0][:140]}", flush=True)
                rows.append({"model": name, "error": f"export: {error}"})
                continue
            for preset in args.presets.split(","):
                for precision in args.precisions.split(","):
                    row = measure(npusim, model_path, preset, precision, Path(tmp), args.timing_only, args.timeout,
                                  args.per_op)
                    print_row(name, row)
                    rows.append({"model": name, **row})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
