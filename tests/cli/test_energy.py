#!/usr/bin/python3
"""Energy, power and area beside cycles: a real run's energy adds up by unit and by op, a
changed MAC energy moves the tensor unit's energy alone (not a cycle), int8 MACs cost the
preset's figure, trace.json has a power track, report.md an energy table, diff compares them,
and a bad energy field is a one-line error."""
import json
import unittest

from npusim_cli import NpusimTestCase, example


class EnergyTest(NpusimTestCase):
    def report(self, model, *flags, name="rep"):
        self.ok("run", example(model), "--arch", "edge", "--report", name, *flags)
        return json.loads((self.tmp / name / "report.json").read_text())

    def test_energy_adds_up_by_unit_and_by_op(self):
        r = self.report("small_cnn.onnx")
        energy = r["energy"]
        units = energy["units"]
        self.assertEqual(sorted(units), sorted(["control_core", "dma_load", "dma_store", "tensor", "vector", "sram", "dram"]))
        self.assertAlmostEqual(sum(u["dynamic_pj"] for u in units.values()), energy["dynamic_pj"], delta=1e-9 * energy["dynamic_pj"])
        self.assertAlmostEqual(sum(u["leakage_pj"] for u in units.values()), energy["leakage_pj"], delta=1e-9 * energy["leakage_pj"])
        self.assertAlmostEqual(energy["dynamic_pj"] + energy["leakage_pj"], energy["total_pj"], delta=1e-9 * energy["total_pj"])
        self.assertAlmostEqual(sum(op["energy_pj"] for op in r["ops"]), energy["dynamic_pj"], delta=1e-9 * energy["dynamic_pj"])
        self.assertAlmostEqual(sum(r["area"]["units"].values()), r["area"]["total_mm2"], delta=1e-12)
        for unit, parts in units.items():
            self.assertGreater(parts["dynamic_pj"], 0, unit)
        self.assertEqual(units["dram"]["leakage_pj"], 0)  # off chip
        # Power: the energy over the run's time; the peak window above the average.
        self.assertAlmostEqual(r["power"]["average_w"], energy["total_pj"] * 1e-12 / r["time_seconds"], delta=1e-9)
        self.assertGreater(r["power"]["peak_w"], r["power"]["average_w"])
        macs = sum(op["macs"] for op in r["ops"])
        self.assertAlmostEqual(energy["tops_per_watt"], 2 * macs / energy["total_pj"], delta=1e-12)
        # The readable reports and the trace carry them.
        markdown = (self.tmp / "rep" / "report.md").read_text()
        self.assertIn("## Energy", markdown)
        self.assertIn("TOPS/W", markdown)
        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]
        power = [e for e in trace if e.get("name") == "power" and e.get("ph") == "C"]
        self.assertGreater(len(power), 10)
        self.assertTrue(all(e["args"]["W"] >= r["power"]["leakage_w"] * 0.999 for e in power[:-1]))

    def test_doubling_the_mac_energy_moves_the_tensor_unit_alone(self):
        edge = json.loads(self.ok("arch", "show", "edge"))
        fp32 = edge["energy"]["mac_pj"]["fp32"]
        a = self.report("small_cnn.onnx", name="a")
        b = self.report("small_cnn.onnx", "--set", f"energy.mac_pj.fp32={2 * fp32}", name="b")
        self.assertEqual(a["total_cycles"], b["total_cycles"])
        for unit, parts in a["energy"]["units"].items():
            other = b["energy"]["units"][unit]
            if unit == "tensor":
                self.assertAlmostEqual(other["dynamic_pj"], 2 * parts["dynamic_pj"], delta=1e-9 * parts["dynamic_pj"])
            else:
                self.assertEqual(other["dynamic_pj"], parts["dynamic_pj"], unit)
            self.assertEqual(other["leakage_pj"], parts["leakage_pj"], unit)
        # npusim diff shows the change.
        out = self.ok("diff", "a", "b")
        self.assertIn("energy: ", out)
        self.assertIn("area: ", out)
        diff = json.loads(self.ok("diff", "a", "b", "--json"))
        self.assertGreater(diff["b"]["energy_pj"], diff["a"]["energy_pj"])

    def test_an_int8_mac_costs_the_presets_figure(self):
        edge = json.loads(self.ok("arch", "show", "edge"))
        r = self.report("matmul_int8.onnx")
        macs = sum(op["macs"] for op in r["ops"])
        self.assertAlmostEqual(r["energy"]["units"]["tensor"]["dynamic_pj"] / macs, edge["energy"]["mac_pj"]["int8"], places=9)
        # The op's energy per MAC adds its operands' SRAM, DMA and DRAM traffic.
        op = next(op for op in r["ops"] if op["macs"] > 0)
        self.assertGreater(op["pj_per_mac"], edge["energy"]["mac_pj"]["int8"])

    def test_the_energy_objective_changes_a_tiling_and_lowers_the_energy(self):
        model = example("mlp.onnx")
        tiles = {o: self.ok("compile", model, "--arch", "edge", "--emit", "tile", "--objective", o) for o in ("cycles", "energy")}
        blocks = {o: [line for line in text.splitlines() if "gemm.block" in line] for o, text in tiles.items()}
        self.assertNotEqual(blocks["cycles"], blocks["energy"])
        cycles = self.report("mlp.onnx", name="cycles")
        energy = self.report("mlp.onnx", "--objective", "energy", name="energy")
        edp = self.report("mlp.onnx", "--objective", "edp", name="edp")
        self.assertEqual((cycles["objective"], energy["objective"], edp["objective"]), ("cycles", "energy", "edp"))
        self.assertLess(energy["energy"]["total_pj"], 0.9 * cycles["energy"]["total_pj"])
        self.assertLess(edp["energy"]["total_pj"] * edp["total_cycles"], cycles["energy"]["total_pj"] * cycles["total_cycles"])
        self.assertIn("schedules chosen for energy", (self.tmp / "energy" / "report.md").read_text())
        self.assertIn("schedules for energy", self.ok("diff", "cycles", "energy"))
        # The estimate prints each op's energy; an artifact records the objective.
        self.assertIn("est. energy pJ", self.ok("compile", model, "--arch", "edge", "--estimate", "--objective", "energy"))
        self.ok("compile", model, "--arch", "edge", "--objective", "edp", "-o", "m.npuart")
        self.ok("run", "m.npuart", "--report", "artifact")
        self.assertEqual(json.loads((self.tmp / "artifact" / "report.json").read_text())["objective"], "edp")

    def test_bad_energy_fields_are_one_line_errors(self):
        model = example("mlp.onnx")
        self.assertFailsCleanly(["run", model, "--arch", "edge", "--set", "energy.mac_pj.int4=0.1"], 2,
                                ["energy.mac_pj.int4", "int8"])
        self.assertFailsCleanly(["run", model, "--arch", "edge", "--set", "energy.sram_pj_per_byte=-1"], 2,
                                ["energy.sram_pj_per_byte"])
        self.assertFailsCleanly(["arch", "show", "edge", "--set", "area.vector_lane_um2=\"big\""], 2,
                                ["area.vector_lane_um2"])
        self.assertFailsCleanly(["run", model, "--arch", "edge", "--objective", "power"], 2, ["--objective 'power'", "edp"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
