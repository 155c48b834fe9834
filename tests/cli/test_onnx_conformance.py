#!/usr/bin/python3
"""ONNX's backend node tests through `npusim conformance`: every case is compiled, simulated on the
whole stack and compared with ONNX's expected outputs. The NPU either computes a case right or
refuses it at compile time with a located reason; it never returns a wrong answer."""
import json
import unittest

from npusim_cli import ONNX_NODE_TESTS, NpusimTestCase

# The floor of passing cases over the whole suite (824 pass today: every case whose ops and
# element types npusim takes).
MIN_PASSED = 824


class OnnxConformanceTest(NpusimTestCase):
    def run_suite(self, *args):
        report = self.tmp / "conformance.json"
        result = self.npusim("conformance", "--suite", ONNX_NODE_TESTS, "--json", report, *args)
        self.assertNoCrash(result)
        return result, {case["name"]: case for case in json.loads(report.read_text())}

    def test_the_suite_passes_or_refuses_with_a_reason(self):
        result, cases = self.run_suite()
        self.assertIn(result.returncode, (0, 1), result.stderr)
        by_status = {status: [c for c in cases.values() if c["status"] == status]
                     for status in ("passed", "failed", "skipped")}
        print(f"\n{len(by_status['passed'])} passed, {len(by_status['failed'])} failed, "
              f"{len(by_status['skipped'])} skipped")
        self.assertGreaterEqual(len(by_status["passed"]), MIN_PASSED)
        self.assertIn(f"{len(by_status['passed'])} passed, {len(by_status['failed'])} failed", result.stdout)
        # A failure is a compile-time refusal naming the op, never a wrong output, crash or timeout.
        for case in by_status["failed"]:
            with self.subTest(case=case["name"]):
                self.assertNotIn("differs from ONNX's", case["reason"])
                self.assertNotIn("crashed", case["reason"])
                self.assertNotIn("timed out", case["reason"])
                self.assertRegex(case["reason"], r"^op '[^']+' \(\w+\): ")
        for case in by_status["skipped"]:
            self.assertTrue(case["reason"], case["name"])

    def test_families_that_run_on_the_npu(self):
        # Matmul, conv, pooling, normalisation, data movement (Gather on runtime indices too: an
        # indexed DMA load), resampling and quantisation, on the NPU.
        result, cases = self.run_suite("--filter", r"^test_(matmul_|gemm_|basic_conv_|conv_with|maxpool_2d_pads|"
                                                   r"averagepool_2d_pads|batchnorm_epsilon$|layer_normalization_4d|"
                                                   r"softmax_axis|transpose_all|concat_|slice$|split_equal|"
                                                   r"reshape_|edge_pad|quantizelinear$|dequantizelinear$|"
                                                   r"resize_upsample_scales_linear$|resize_downsample_scales_cubic$|"
                                                   r"convtranspose_pads|add_uint8|gather_0|gather_1|gather_2d_indices|"
                                                   r"gather_negative_indices)")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertGreaterEqual(len(cases), 40)
        self.assertTrue(all(c["status"] == "passed" and c["cycles"] > 0 and c["cpu_ops"] == 0 for c in cases.values()))

    def test_recurrences_are_unrolled_onto_the_npu(self):
        # LSTM (with peepholes), GRU (both reset orders) and RNN, in both layouts.
        result, cases = self.run_suite("--filter", r"^test_(lstm_|gru_|simple_rnn_|rnn_)")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertEqual(len(cases), 12)
        self.assertTrue(all(c["status"] == "passed" and c["npu_ops"] > 0 and c["cpu_ops"] == 0 for c in cases.values()))

    def test_ops_without_npu_lowering_run_as_cpu_segments(self):
        result, cases = self.run_suite("--filter", r"^test_(top_k|gathernd_example_float32|gather_elements_negative_indices|"
                                                   r"where_example|onehot_with_axis|reduce_prod_keepdims_random|"
                                                   r"dynamicquantizelinear|nllloss_NCd1_expanded|nllloss_NCd1_weight_ii|"
                                                   r"sce_mean_weight_ii_log_prob)$")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertEqual(len(cases), 10)
        for case in cases.values():
            with self.subTest(case=case["name"]):
                self.assertEqual(case["status"], "passed")
                self.assertGreater(case["cpu_ops"], 0)
        # The expanded NLL loss mixes both: its arithmetic on the NPU, its GatherElements on the host; so
        # does SoftmaxCrossEntropyLoss: its LogSoftmax on the NPU, its loss on the host.
        self.assertGreater(cases["test_nllloss_NCd1_expanded"]["npu_ops"], 0)
        self.assertGreater(cases["test_sce_mean_weight_ii_log_prob"]["npu_ops"], 0)

    def test_a_case_outside_npusim_is_skipped_with_the_reason(self):
        result, cases = self.run_suite("--filter", "^test_eyelike_with_dtype$")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(cases["test_eyelike_with_dtype"]["status"], "skipped")
        self.assertIn("element type DOUBLE", cases["test_eyelike_with_dtype"]["reason"])

    def test_bad_arguments_are_one_line_errors(self):
        self.assertFailsCleanly(["conformance", "--suite", ONNX_NODE_TESTS, "--filter", "(unclosed"], 2,
                                ["--filter", "regular expression"])
        self.assertFailsCleanly(["conformance", "--suite", self.tmp / "absent"], 2, ["absent", "not a directory"])
        self.assertFailsCleanly(["conformance", "--suite", ONNX_NODE_TESTS, "--filter", "^no_such_case$"], 2,
                                ["no case"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
