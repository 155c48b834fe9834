"""Seed corpora for the fuzz targets, from the project's own examples and ONNX's test data, and
every input a fuzzer found a bug with (tests/fuzz/regressions/<target>/):
    seed_corpora.py OUT_DIR    writes OUT_DIR/<target>/ for every target
Needs NPUSIM (the npusim executable) and NPUSIM_EXAMPLES (the generated example models)."""
import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parents[2]
ONNX_NODE_TESTS = Path("/usr/share/libonnx-testdata/data/node")
SMALL_MODELS = ("mlp.onnx", "matmul_int8.onnx", "small_cnn.onnx", "sampling_head.onnx")


def write_corpora(out):
    out = Path(out)
    examples = Path(os.environ["NPUSIM_EXAMPLES"])
    corpora = {name: out / name for name in
               ("fuzz_arch_config", "fuzz_artifact", "fuzz_commands", "fuzz_npy", "fuzz_tensor_proto", "fuzz_onnx_import")}
    for target, directory in corpora.items():
        directory.mkdir(parents=True, exist_ok=True)
        regressions = Path(__file__).parent / "regressions" / target
        for found in sorted(regressions.glob("*")) if regressions.is_dir() else []:
            shutil.copy(found, directory / f"regression.{found.name}")
    for preset in sorted((SOURCE / "arch" / "presets").glob("*.json")):
        shutil.copy(preset, corpora["fuzz_arch_config"] / preset.name)
    for model in SMALL_MODELS:
        shutil.copy(examples / model, corpora["fuzz_onnx_import"] / model)
        artifact = corpora["fuzz_artifact"] / (Path(model).stem + ".npuart")
        subprocess.run([os.environ["NPUSIM"], "compile", examples / model, "-o", artifact], check=True,
                       capture_output=True)
        data = artifact.read_bytes()
        (manifest_size,) = struct.unpack_from("<Q", data, 16)
        manifest = json.loads(data[24:24 + manifest_size])
        last = max(manifest["sections"], key=lambda s: s["offset"])
        payload = len(data) - (last["offset"] + last["size"])
        for section in manifest["sections"]:
            if section["name"].startswith("commands"):
                start = payload + section["offset"]
                (corpora["fuzz_commands"] / f"{Path(model).stem}.{section['name']}").write_bytes(
                    data[start:start + section["size"]])
    rng = np.random.default_rng(1)
    for i, array in enumerate([rng.standard_normal((4, 8)).astype(np.float32), np.arange(12, dtype=np.int64).reshape(3, 4),
                               np.zeros((2, 3, 4), np.int8), np.array(3.5, np.float32), np.asfortranarray(np.ones((3, 2))),
                               np.array([True, False])]):
        np.save(corpora["fuzz_npy"] / f"seed{i}.npy", array)
    cases = sorted(ONNX_NODE_TESTS.glob("test_*"))[:400:20]
    for case in cases:
        for pb in sorted(case.glob("test_data_set_0/*.pb"))[:2]:
            shutil.copy(pb, corpora["fuzz_tensor_proto"] / f"{case.name}.{pb.name}")
        shutil.copy(case / "model.onnx", corpora["fuzz_onnx_import"] / f"{case.name}.onnx")
    return corpora


if __name__ == "__main__":
    write_corpora(sys.argv[1])
