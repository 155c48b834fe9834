#!/usr/bin/python3
"""ONNX backend node tests through the CLI: npusim's outputs match ONNX's own reference outputs."""
import unittest

from npusim_cli import ONNX_NODE_TESTS, NpusimTestCase

SUPPORTED_CASES = ["test_matmul_2d", "test_matmul_3d", "test_matmul_4d", "test_relu"]


def supported_cases():
    gemm = sorted(p.name for p in ONNX_NODE_TESTS.glob("test_gemm_*") if p.is_dir())
    return SUPPORTED_CASES + gemm


class OnnxBackendConformanceTest(NpusimTestCase):
    def test_the_gemm_cases_are_installed(self):
        # Guards the glob above: an empty match would make the conformance test pass vacuously.
        self.assertGreaterEqual(len(supported_cases()) - len(SUPPORTED_CASES), 10)

    def test_supported_cases_match_the_onnx_reference_outputs(self):
        for case in supported_cases():
            with self.subTest(case=case):
                model, data = ONNX_NODE_TESTS / case / "model.onnx", ONNX_NODE_TESTS / case / "test_data_set_0"
                result = self.npusim("run", model, "--inputs", data, "--expected", data)
                self.assertSucceeded(result)
                self.assertIn(f"check against {data}: passed", result.stdout)

    def test_matmulinteger_with_runtime_zero_points_is_a_known_gap(self):
        # MatMulInteger whose zero points are graph inputs cannot run on the tensor unit yet; this
        # must stay a clear input error until it is supported (then move the case above).
        case = ONNX_NODE_TESTS / "test_matmulinteger"
        self.assertFailsCleanly(["run", case / "model.onnx", "--inputs", case / "test_data_set_0",
                                 "--expected", case / "test_data_set_0"], 2, ["MatMulInteger", "zero_point"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
