#!/usr/bin/python3
"""What a precision buys and costs, per model, side by side in one run: each model of the zoo
(tests/bench/zoo_models.py, seeded random weights) is compiled at every precision and run on
several seeded inputs with `npusim run --check` (int8 calibrated on 8 other seeded input sets drawn
the same way; random floats; a model that takes integers,
such as token ids, gets the zoo's own input set shuffled per seed, so every id stays valid); prints cycles, DRAM bytes and their
ratios to fp32, and against the fp32 reference interpreter the lowest cosine similarity and SNR
of an output, the largest relative error, and the share of inputs whose top-1 class (for scores
over classes) agrees with the reference's. Figures, not assertions.

    tests/bench/precision_accuracy.py [--build DIR] [--cache DIR] [--models resnet18,mobilenet_v2]
                                      [--preset server] [--precisions fp32,bf16,fp16,int8] [--inputs 8]
                                      [--json FILE]
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import zoo_models  # noqa: E402

# One process may take this much address space: a runaway plan fails instead of taking the machine.
ADDRESS_LIMIT = 12 << 30


def inputs_for(model, seed, work):
    """'random', or for a model with integer inputs a directory of its zoo inputs shuffled by `seed`."""
    given = sorted((model.parent / "inputs").glob("*.npy"))
    if not any(np.issubdtype(np.load(path).dtype, np.integer) for path in given):
        return "random"
    directory = work / f"inputs.{seed}"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir()
    shuffle = np.random.RandomState(seed)
    for path in given:
        values = np.load(path)
        np.save(directory / path.name, shuffle.permutation(values.ravel()).reshape(values.shape) if seed > 1 else values)
    return str(directory)


def run(npusim, model, preset, precision, seed, work, report):
    command = [str(npusim), "run", str(model), "--arch", preset, "--precision", precision, "--inputs",
               inputs_for(model, seed, work), "--seed", str(seed), "--check", "--report", str(report)]
    if precision == "int8":  # calibrated on other seeds than the checked inputs', drawn the same way
        command += ["--calibrate-inputs", str(zoo_models.calibration_sets(model, uniform=True))]
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))"
    result = subprocess.run([sys.executable, "-c", f"{limit}; import os, sys; os.execv(sys.argv[1], sys.argv[1:])",
                             *command], capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit {result.returncode}")
    return json.loads((report / "report.json").read_text())


def measure(npusim, model, preset, precision, seeds, work):
    row = {"precision": precision, "cosine": 1.0, "snr_db": float("inf"), "max_rel_error": 0.0}
    agreements = []
    for seed in seeds:
        report = run(npusim, model, preset, precision, seed, work, work / f"{precision}.{seed}")
        row["cycles"] = report["total_cycles"]
        row["dram_bytes"] = report["dram"]["bytes_read"] + report["dram"]["bytes_written"]
        for output in report["check"]["outputs"]:
            row["cosine"] = min(row["cosine"], output["cosine"])
            snr = output["snr_db"] if output["snr_db"] is not None else float("inf")
            row["snr_db"] = min(row["snr_db"], snr)
            row["max_rel_error"] = max(row["max_rel_error"], output["max_rel_error"])
            if output["top1_agreement"] is not None:
                agreements.append(output["top1_agreement"])
    row["top1"] = sum(agreements) / len(agreements) if agreements else None
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", type=Path)
    parser.add_argument("--cache", default=None, type=Path, help="where exported models are kept (default BUILD/zoo)")
    parser.add_argument("--models", default="resnet18,mobilenet_v2")
    parser.add_argument("--preset", default="server")
    parser.add_argument("--precisions", default="fp32,bf16,fp16,int8")
    parser.add_argument("--inputs", default=8, type=int, help="seeded random input sets per model")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    npusim = (args.build / "bin" / "npusim").resolve()
    cache = args.cache or args.build / "zoo"
    seeds = range(1, args.inputs + 1)
    print(f"{'model':<16} {'prec':<5} {'cycles':>10} {'x fp32':>7} {'DRAM MiB':>9} {'x fp32':>7} "
          f"{'min cosine':>10} {'min SNR':>8} {'max rel err':>11} {'top-1':>6}")
    rows = []
    for name in args.models.split(","):
        model = zoo_models.export(name, cache)
        base = None
        with tempfile.TemporaryDirectory(prefix="npusim_precision_") as tmp:
            for precision in args.precisions.split(","):
                try:
                    row = measure(npusim, model, args.preset, precision, seeds, Path(tmp))
                except RuntimeError as error:
                    print(f"{name:<16} {precision:<5} failed: {error}", flush=True)
                    rows.append({"model": name, "precision": precision, "error": str(error)})
                    continue
                base = base or row
                top1 = f"{row['top1']:6.0%}" if row["top1"] is not None else "     -"
                print(f"{name:<16} {precision:<5} {row['cycles']:>10} {base['cycles'] / row['cycles']:6.2f}x "
                      f"{row['dram_bytes'] / 2**20:9.1f} {base['dram_bytes'] / row['dram_bytes']:6.2f}x "
                      f"{row['cosine']:10.6f} {row['snr_db']:8.1f} {row['max_rel_error']:11.2e} {top1}", flush=True)
                rows.append({"model": name, **row})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
