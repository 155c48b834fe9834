"""npusim sweep: design points times models into an SQLite database, resumable, killable,
compared with a baseline, plotted; and the same sweep through a real single-node Slurm."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npusim_cli import NPUSIM, NpusimTestCase, example  # noqa: E402
from slurm_cluster import SlurmCluster, SlurmUnavailable  # noqa: E402

# Two axes (one zipped pair of keys, one grid axis) and a compiler option over two models.
SPEC = {
    "models": ["mlp.onnx", "small_cnn.onnx"],
    "base": "edge",
    "axes": [
        {"tensor.rows": [8, 16], "tensor.cols": [8, 16]},
        {"sram.size_kib": [256, 1024]},
        {"compiler.fusion": [True, False]},
    ],
}
POINTS = 2 * 2 * 2 * 2


def rows(database, where=""):
    connection = sqlite3.connect(database)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in connection.execute(f"SELECT * FROM points {where} ORDER BY sweep_index")]
    finally:
        connection.close()


class SweepTestCase(NpusimTestCase):
    def setUp(self):
        super().setUp()
        for model in ("mlp.onnx", "small_cnn.onnx"):
            (self.tmp / model).write_bytes(example(model).read_bytes())
        self.write_spec(SPEC)

    def write_spec(self, spec, name="spec.json"):
        (self.tmp / name).write_text(json.dumps(spec))


class LocalSweepTest(SweepTestCase):
    def test_sweep_fills_one_row_per_point_and_reruns_nothing(self):
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite", "--jobs", "2")
        self.assertIn(f"{POINTS} points (2 models), 0 already in s.sqlite, {POINTS} to run", out)
        table = rows(self.tmp / "s.sqlite")
        self.assertEqual(len(table), POINTS)
        self.assertEqual(sorted(r["sweep_index"] for r in table), list(range(POINTS)))
        self.assertEqual(len({r["key"] for r in table}), POINTS)
        for r in table:
            with self.subTest(point=r["sweep_index"]):
                self.assertEqual(r["status"], "ok", r["error"])
                self.assertGreater(r["total_cycles"], 0)
                config = json.loads(r["config"])
                params = json.loads(r["params"])
                self.assertEqual(config["tensor"]["rows"], params["tensor.rows"])
                self.assertEqual(config["tensor"]["cols"], params["tensor.cols"])
                self.assertEqual(config["sram"]["size_kib"], params["sram.size_kib"])
                self.assertEqual(json.loads(r["compiler"])["fusion"], params["compiler.fusion"])
                self.assertEqual(r["pe_count"], params["tensor.rows"] * params["tensor.cols"])
                self.assertEqual(r["model"], "mlp" if r["sweep_index"] < POINTS // 2 else "small_cnn")
                self.assertEqual(len(r["model_sha256"]), 64)
                self.assertTrue(r["npusim_version"])
                utilization = json.loads(r["utilization"])
                self.assertIn("npu.tensor", utilization)
                self.assertAlmostEqual(utilization["npu.tensor"], r["tensor_utilization"])
                self.assertEqual(sum(json.loads(r["findings"]).values()), r["findings_total"])
        # A bigger array is faster on the same model and SRAM.
        cycles = {(r["model"], r["params"]): r["total_cycles"] for r in table}
        for (model, params), c in cycles.items():
            p = json.loads(params)
            if p["tensor.rows"] == 8:
                p.update({"tensor.rows": 16, "tensor.cols": 16})
                self.assertLess(cycles[(model, json.dumps(p, separators=(",", ":")))], c)

        finished = {r["key"]: r["finished_at"] for r in table}
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite")
        self.assertIn(f"{POINTS} already in s.sqlite, 0 to run", out)
        self.assertEqual({r["key"]: r["finished_at"] for r in rows(self.tmp / "s.sqlite")}, finished)

    def test_a_killed_sweep_keeps_its_finished_points_and_the_rerun_completes_the_rest(self):
        spec = dict(SPEC, axes=SPEC["axes"] + [{"dram.bandwidth_gbps": [8, 12.8, 25.6]}])
        self.write_spec(spec)
        total = POINTS * 3
        sweep = subprocess.Popen([NPUSIM, "sweep", "spec.json", "--db", "s.sqlite", "--jobs", "2"], cwd=self.tmp,
                                 stdout=subprocess.PIPE, text=True, start_new_session=True)
        for line in sweep.stdout:
            if line.startswith("[4/"):
                break
        os.killpg(sweep.pid, signal.SIGKILL)  # the sweep and its workers, mid-point
        sweep.wait()
        sweep.stdout.close()
        connection = sqlite3.connect(self.tmp / "s.sqlite")
        self.assertEqual(connection.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        kept = connection.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        connection.close()
        self.assertGreaterEqual(kept, 4)
        self.assertLess(kept, total)
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite")
        self.assertIn(f"{kept} already in s.sqlite, {total - kept} to run", out)
        self.assertEqual(len(rows(self.tmp / "s.sqlite", "WHERE status = 'ok'")), total)

    def test_baseline_flags_points_whose_cycles_moved(self):
        self.ok("sweep", "spec.json", "--db", "base.sqlite")
        (self.tmp / "s.sqlite").write_bytes((self.tmp / "base.sqlite").read_bytes())
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite", "--baseline", "base.sqlite")
        self.assertIn(f"{POINTS} points compared, 0 not in it, 0 moved beyond 5.0%", out)
        # The baseline had a point 20% faster: this run is a regression there.
        connection = sqlite3.connect(self.tmp / "base.sqlite")
        connection.execute("UPDATE points SET total_cycles = total_cycles * 10 / 12 WHERE sweep_index = 3")
        connection.commit()
        connection.close()
        result = self.npusim("sweep", "spec.json", "--db", "s.sqlite", "--baseline", "base.sqlite", "--tolerance", "0.1")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("1 moved beyond 10.0%", result.stdout)
        moved = rows(self.tmp / "s.sqlite", "WHERE sweep_index = 3")[0]
        self.assertIn(moved["params"], result.stdout)
        self.assertIn("+20.0%", result.stdout)
        self.assertEqual(result.stderr.strip(), "npusim: run failed: 1 points moved beyond 10% of the baseline's cycles")

    def test_sweep_plot_draws_the_pareto_front_and_sensitivity(self):
        self.ok("sweep", "spec.json", "--db", "s.sqlite")
        self.ok("sweep-plot", "s.sqlite", "-o", "plots")
        for name in ("pareto.png", "sensitivity.png"):
            self.assertEqual((self.tmp / "plots" / name).read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        # Every point has its energy, power and area; a bigger array or SRAM has more area.
        table = rows(self.tmp / "s.sqlite")
        for r in table:
            self.assertGreater(r["energy_pj"], 0)
            self.assertGreaterEqual(r["peak_w"], r["average_w"] * 0.999)
        area = {(json.loads(r["params"])["tensor.rows"], json.loads(r["params"])["sram.size_kib"]): r["area_mm2"] for r in table}
        self.assertLess(area[(8, 256)], area[(16, 256)])
        self.assertLess(area[(8, 256)], area[(8, 1024)])
        # The fronts: no point of a model beats a front point on the front's costs, and every
        # point left out is beaten by one.
        fronts = json.loads((self.tmp / "plots" / "pareto.json").read_text())
        self.assertEqual(sorted(fronts), ["mlp", "small_cnn"])
        costs = {"cycles_area": ("area_mm2", "total_cycles"), "cycles_energy": ("energy_pj", "total_cycles"),
                 "cycles_energy_area": ("total_cycles", "energy_pj", "area_mm2")}

        def dominates(a, b, keys):
            return all(a[k] <= b[k] for k in keys) and any(a[k] < b[k] for k in keys)

        for model, sets in fronts.items():
            self.assertEqual(sets["area"], "mm2")
            points = [r for r in table if r["model"] == model]
            for name, keys in costs.items():
                with self.subTest(model=model, front=name):
                    front = {p["key"] for p in sets[name]}
                    self.assertTrue(front)
                    for p in points:
                        beaten = any(dominates(q, p, keys) for q in points)
                        self.assertEqual(p["key"] not in front, beaten, p["params"])
        self.ok("sweep-plot", "s.sqlite", "-o", "plots")  # an earlier run's plots are replaced
        # A directory holding anything else is never replaced.
        self.assertFailsCleanly(["sweep-plot", "s.sqlite", "-o", "."], 2, ["other files", "choose another directory"])

    def test_a_database_from_before_the_energy_model_still_reads_and_grows_its_columns(self):
        self.write_spec({"models": ["mlp.onnx"], "axes": [{"sram.size_kib": [256, 1024]}]})
        self.ok("sweep", "spec.json", "--db", "s.sqlite")
        connection = sqlite3.connect(self.tmp / "s.sqlite")
        for column in ("energy_pj", "average_w", "peak_w", "area_mm2"):
            connection.execute(f"ALTER TABLE points DROP COLUMN {column}")
        connection.commit()
        connection.close()
        self.ok("sweep-plot", "s.sqlite", "-o", "plots")  # area proxy, no energy front
        fronts = json.loads((self.tmp / "plots" / "pareto.json").read_text())
        self.assertEqual(list(fronts["mlp"]), ["area", "cycles_area"])
        self.assertEqual(fronts["mlp"]["area"], "proxy")
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite")  # opened to write: the columns are added
        self.assertIn("2 already in s.sqlite", out)
        self.assertEqual([r["energy_pj"] for r in rows(self.tmp / "s.sqlite")], [0, 0])

    def test_a_point_that_cannot_compile_is_a_failed_row_not_a_failed_sweep(self):
        # 1 KiB of SRAM holds no GEMM block of the mlp's layers.
        self.write_spec({"models": ["mlp.onnx"], "axes": [{"sram.size_kib": [1, 1024]}]})
        out = self.ok("sweep", "spec.json", "--db", "s.sqlite")
        self.assertIn("1 failed to compile or run", out)
        failed, ok = rows(self.tmp / "s.sqlite")
        self.assertEqual((failed["status"], ok["status"]), ("failed", "ok"))
        self.assertIn("fits 1 KiB SRAM", failed["error"])

    def test_precision_is_an_axis(self):
        self.write_spec({"models": ["mlp.onnx"], "axes": [{"compiler.precision": ["fp32", "bf16"]}]})
        self.ok("sweep", "spec.json", "--db", "s.sqlite")
        wide, narrow = rows(self.tmp / "s.sqlite")
        self.assertEqual([json.loads(r["compiler"])["precision"] for r in (wide, narrow)], ["fp32", "bf16"])
        self.assertLess(narrow["total_cycles"], wide["total_cycles"])
        self.assertLess(narrow["dram_bytes"], wide["dram_bytes"])

    def test_int8_points_calibrate_on_the_spec_s_samples(self):
        for i in range(2):
            (self.tmp / "cal" / f"s{i}").mkdir(parents=True)
            np.save(self.tmp / "cal" / f"s{i}" / "x.npy", np.random.RandomState(i).uniform(-1, 1, (64, 256)).astype(np.float32))
        self.write_spec({"models": ["mlp.onnx"], "calibrate_inputs": "cal",
                         "axes": [{"compiler.precision": ["bf16", "int8"]}]})
        self.ok("sweep", "spec.json", "--db", "s.sqlite")
        bf16, int8 = rows(self.tmp / "s.sqlite")
        self.assertEqual((bf16["status"], int8["status"]), ("ok", "ok"))
        self.assertEqual(json.loads(int8["compiler"])["precision"], "int8")
        self.assertLess(int8["dram_bytes"], bf16["dram_bytes"])
        self.write_spec({"models": ["mlp.onnx"], "axes": [{"compiler.precision": ["int8"]}]}, "bare.json")
        self.assertFailsCleanly(["sweep", "bare.json"], 2, ["int8", "calibrate_inputs"])

    def test_bad_specs_and_options_are_named_and_leave_nothing(self):
        cases = [
            (["sweep", "missing.json"], ["missing.json"]),
            (["sweep", "spec.json", "--backend", "cloud"], ["--backend", "cloud"]),
            (["sweep", "spec.json", "--baseline", "none.sqlite"], ["none.sqlite"]),
            (["sweep", "spec.json", "--baseline", "mlp.onnx"], ["mlp.onnx", "not a sweep database"]),
            (["sweep-plot", "none.sqlite"], ["none.sqlite"]),
        ]
        for name, spec, words in [
            ("zip.json", {"models": ["mlp.onnx"], "axes": [{"tensor.rows": [8, 16], "tensor.cols": [8]}]}, ["zipped"]),
            ("field.json", {"models": ["mlp.onnx"], "axes": [{"tensor.nope": [8]}]}, ["tensor.nope"]),
            ("model.json", {"models": ["nowhere.onnx"]}, ["nowhere.onnx"]),
            ("extra.json", {"models": ["mlp.onnx"], "grid": {}}, ["grid"]),
            ("option.json", {"models": ["mlp.onnx"], "axes": [{"compiler.magic": [1]}]}, ["compiler.magic"]),
            ("precision.json", {"models": ["mlp.onnx"], "axes": [{"compiler.precision": ["fp8"]}]},
             ["compiler.precision", "bf16"]),
        ]:
            self.write_spec(spec, name)
            cases.append((["sweep", name], words))
        (self.tmp / "broken.json").write_text("{ not json")
        cases.append((["sweep", "broken.json"], ["broken.json", "JSON"]))
        for args, words in cases:
            with self.subTest(args=args):
                self.assertFailsCleanly(args, 2, words)


class SlurmSweepTest(SweepTestCase):
    def test_the_slurm_backend_runs_the_sweep_as_a_job_array(self):
        try:
            cluster = SlurmCluster(self.tmp / "slurm")
            env = cluster.__enter__()
        except SlurmUnavailable as reason:
            self.skipTest(f"no single-node Slurm here: {reason}")
        self.addCleanup(cluster.__exit__, None, None, None)
        result = subprocess.run([NPUSIM, "sweep", "spec.json", "--db", "s.sqlite", "--backend", "slurm"],
                                cwd=self.tmp, env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"{POINTS} to run on slurm", result.stdout)
        table = rows(self.tmp / "s.sqlite")
        self.assertEqual(len(table), POINTS)
        self.assertTrue(all(r["status"] == "ok" for r in table))
        # The same points as the local backend computes.
        local = subprocess.run([NPUSIM, "sweep", "spec.json", "--db", "local.sqlite", "--jobs", "2"], cwd=self.tmp,
                               capture_output=True, text=True, timeout=600)
        self.assertEqual(local.returncode, 0, local.stderr)
        self.assertEqual({r["key"]: r["total_cycles"] for r in table},
                         {r["key"]: r["total_cycles"] for r in rows(self.tmp / "local.sqlite")})
        rerun = subprocess.run([NPUSIM, "sweep", "spec.json", "--db", "s.sqlite", "--backend", "slurm"],
                               cwd=self.tmp, env=env, capture_output=True, text=True, timeout=600)
        self.assertIn(f"{POINTS} already in s.sqlite, 0 to run", rerun.stdout)


if __name__ == "__main__":
    unittest.main()
