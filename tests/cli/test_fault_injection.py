"""npusim run --inject KIND@N: every fault kind is detected (an error code, the watchdog, the
driver's polling, ECC, parity), reported in report.json, recovered from by running the job again, and
never hangs the simulation; without retries the run fails in one line, leaving nothing."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npusim_cli import NpusimTestCase, example  # noqa: E402

# A budget far above the mlp's ~206,000 cycles, far below the default: a hang ends quickly.
WATCHDOG = "2000000"


class FaultInjectionTest(NpusimTestCase):
    def run_with(self, fault, *extra):
        out = self.ok("run", example("mlp.onnx"), "--check", "--inject", fault, "--watchdog", WATCHDOG,
                      "--report", "rep", *extra)
        self.assertIn("check against the reference interpreter: passed", out)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        return out, report["faults"], report

    def test_a_dma_error_response_is_a_bus_error_and_the_job_runs_again(self):
        out, faults, report = self.run_with("dma_error@3")
        self.assertEqual(faults["injected"], [{"kind": "dma_error", "at": 3, "fired": True}])
        self.assertEqual(len(faults["job_failures"]), 1)
        self.assertIn("bus_error", faults["job_failures"][0])
        self.assertIn("error response", faults["job_failures"][0])
        self.assertEqual(faults["lost_interrupts"], 0)
        self.assertIn("job failed, run again", out)
        self.assertGreater(report["total_cycles"], 0)

    def test_a_hung_unit_is_stopped_by_the_watchdog_and_the_job_runs_again(self):
        _, faults, _ = self.run_with("unit_hang@5")
        self.assertTrue(faults["injected"][0]["fired"])
        self.assertEqual(len(faults["job_failures"]), 1)
        self.assertIn("watchdog", faults["job_failures"][0])

    def test_a_lost_interrupt_is_found_by_polling_the_status(self):
        _, faults, _ = self.run_with("lost_irq@1")
        self.assertTrue(faults["injected"][0]["fired"])
        self.assertEqual(faults["job_failures"], [])
        self.assertEqual(faults["lost_interrupts"], 1)

    def test_a_dram_bit_flip_is_corrected_by_ecc(self):
        _, faults, _ = self.run_with("dram_flip@2")
        self.assertTrue(faults["injected"][0]["fired"])
        self.assertEqual(faults["job_failures"], [])
        self.assertEqual(faults["corrected_errors"], 1)

    def test_an_sram_bit_flip_fails_the_parity_check_and_the_job_runs_again(self):
        _, faults, _ = self.run_with("sram_flip@1")
        self.assertTrue(faults["injected"][0]["fired"])
        self.assertEqual(len(faults["job_failures"]), 1)
        self.assertIn("memory_error", faults["job_failures"][0])
        self.assertIn("parity", faults["job_failures"][0])

    def test_later_jobs_are_correct_after_a_fault(self):
        # The fault hits the first inference; the warm and steady ones run on the same NPU.
        _, faults, report = self.run_with("dma_error@1", "--repeat", "2")
        self.assertTrue(faults["injected"][0]["fired"])
        self.assertEqual(len(faults["job_failures"]), 1)
        self.assertIsNotNone(report["timing"]["steady"])

    def test_a_fault_the_run_never_reaches_is_reported_as_such(self):
        out, faults, _ = self.run_with("dma_error@100000")
        self.assertEqual(faults["injected"][0]["fired"], False)
        self.assertEqual(faults["job_failures"], [])
        self.assertIn("never reached", out)

    def test_without_retries_a_fault_fails_the_run_cleanly(self):
        for fault, code in [("dma_error@2", "bus_error"), ("unit_hang@1", "watchdog"), ("sram_flip@1", "memory_error")]:
            with self.subTest(fault=fault):
                self.assertFailsCleanly(["run", example("mlp.onnx"), "--inject", fault, "--retries", "0",
                                         "--watchdog", WATCHDOG, "--outputs", "out", "--report", "rep"], 1, [code])

    def test_bad_fault_specs_are_named(self):
        for spec, words in [("bogus@1", ["bogus", "dma_error"]), ("dma_error@0", ["dma_error@0", "KIND@N"]),
                            ("lost_irq", ["lost_irq", "KIND@N"]), ("unit_hang@x", ["unit_hang@x"])]:
            with self.subTest(spec=spec):
                self.assertFailsCleanly(["run", example("mlp.onnx"), "--inject", spec], 2, words)


if __name__ == "__main__":
    unittest.main()
