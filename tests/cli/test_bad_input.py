#!/usr/bin/python3
"""npusim on bad input: exit 2 (usage/input) or 1 (run failure), one stderr line that names the
problem, no crash, and no partial artifact, outputs or report left behind."""
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

from npusim_cli import NpusimTestCase, example, read_manifest

USAGE, RUN_FAILED = 2, 1


def custom_op_model(directory, node_name=""):
    """Writes custom.onnx into `directory`: one node, a vendor's custom op npusim does not know."""
    graph = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], name=node_name, domain="com.example")], "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])])
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]
    onnx.save(helper.make_model(graph, opset_imports=opsets), directory / "custom.onnx")
    return "custom.onnx"


class BadModelTest(NpusimTestCase):
    def compile_and_run_fail(self, model, words):
        """Both `compile` and `run` of a bad model fail the same way and write nothing."""
        self.assertFailsCleanly(["compile", model, "-o", "out.npuart"], USAGE, words)
        self.assertFailsCleanly(["run", model, "--outputs", "out", "--report", "rep"], USAGE, words)

    def test_missing_model_file_is_named(self):
        self.compile_and_run_fail("missing.onnx", ["missing.onnx"])

    def test_truncated_onnx_file_is_rejected(self):
        data = example("matmul_fp32.onnx").read_bytes()
        (self.tmp / "half.onnx").write_bytes(data[: len(data) // 2])
        self.compile_and_run_fail("half.onnx", ["half.onnx", "ONNX"])

    def test_non_onnx_file_is_rejected(self):
        (self.tmp / "notes.onnx").write_text("these are notes, not a model\n")
        self.compile_and_run_fail("notes.onnx", ["notes.onnx", "ONNX"])

    def test_op_outside_the_slice_names_node_and_op_type(self):
        # The node is unnamed; npusim names it after its op type and index.
        self.compile_and_run_fail(custom_op_model(self.tmp), ["'frobnicate_0'", "com.example.Frobnicate"])

    def test_op_outside_the_slice_names_the_models_own_node_name(self):
        self.compile_and_run_fail(custom_op_model(self.tmp, "hit_positions"), ["hit_positions", "Frobnicate"])


    def test_a_plan_beyond_max_memory_is_refused_naming_the_op(self):
        # A 2048^3 MatMul on tiny's 8x8 array plans millions of commands: more than 64 MiB to compile.
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["y"], name="huge_projection")], "big",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2048, 2048])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2048, 2048])],
            [helper.make_tensor("w", TensorProto.FLOAT, [2048, 2048], np.zeros(2048 * 2048, np.float32))])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / "big.onnx")
        for command in (["compile", "big.onnx", "--arch", "tiny", "-o", "out.npuart"],
                        ["run", "big.onnx", "--arch", "tiny", "--outputs", "out", "--report", "rep"]):
            self.assertFailsCleanly([*command, "--max-memory", "64M"], USAGE,
                                    ["huge_projection", "MatMul", "--max-memory 64.0 MiB", "MiB of memory"])

    def test_max_memory_that_is_not_a_size_is_a_usage_error(self):
        self.assertFailsCleanly(["compile", example("matmul_fp32.onnx"), "-o", "out.npuart", "--max-memory", "lots"],
                                USAGE, ["--max-memory", "'lots'"])

    def test_ops_neither_the_npu_nor_the_cpu_can_run_are_all_in_the_mapping_report(self):
        # CumSum has a CPU kernel, but only for a constant axis (it decides the loop nest).
        graph = helper.make_graph(
            [helper.make_node("Relu", ["x"], ["r"], name="act"),
             helper.make_node("CumSum", ["x", "a"], ["p"], name="running"),
             helper.make_node("CumSum", ["x", "a"], ["w"], name="again")], "unsupported",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
             helper.make_tensor_value_info("a", TensorProto.INT64, [])],
            [helper.make_tensor_value_info("r", TensorProto.FLOAT, [4, 8]),
             helper.make_tensor_value_info("p", TensorProto.FLOAT, [4, 8]),
             helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 8])])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / "model.onnx")
        result = self.npusim("compile", "model.onnx", "--mapping")
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, USAGE)
        rows = {line.split()[0]: line for line in result.stdout.splitlines()[1:]}
        self.assertIn("vector unit", rows["act"])
        for name in ("running", "again"):
            self.assertIn("unsupported", rows[name])
            self.assertIn("no lowering", rows[name])
        self.assertIn("axis must be a constant", result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1)
        self.assertIn("'running' (CumSum)", result.stderr)
        self.assertIn("1 more ops; see the mapping report", result.stderr)
        self.compile_and_run_fail("model.onnx", ["'running' (CumSum)"])


class BadArchTest(NpusimTestCase):
    def fail_everywhere(self, arch_args, words):
        """`arch show`, `compile` and `run` reject the same bad --arch/--set the same way."""
        model = example("matmul_fp32.onnx")
        show_args = arch_args if arch_args[0] != "--arch" else arch_args[1:]
        if show_args[0] == "--set":
            show_args = ["edge", *show_args]
        with self.subTest(command="arch show"):
            self.assertFailsCleanly(["arch", "show", *show_args], USAGE, words)
        with self.subTest(command="compile"):
            self.assertFailsCleanly(["compile", model, *arch_args, "-o", "out.npuart"], USAGE, words)
        with self.subTest(command="run"):
            self.assertFailsCleanly(["run", model, *arch_args, "--outputs", "out", "--report", "rep"], USAGE, words)

    def test_unknown_preset_is_named(self):
        self.fail_everywhere(["--arch", "huge"], ["'huge'", "preset"])

    def test_set_of_unknown_field_names_the_field(self):
        self.fail_everywhere(["--set", "tensor.rowz=3"], ["tensor.rowz", "unknown field"])

    def test_set_with_wrong_value_type_names_field_and_value(self):
        self.fail_everywhere(["--set", "tensor.rows=many"], ["tensor.rows", "many"])

    def test_set_out_of_range_names_field_and_value(self):
        self.fail_everywhere(["--set", "tensor.rows=0"], ["tensor.rows", "0"])

    def test_negative_repeat_is_a_usage_error(self):
        self.assertFailsCleanly(["run", example("mlp.onnx"), "--repeat", "-1"], USAGE, ["--repeat"])

    def test_set_without_equals_sign_is_a_usage_error(self):
        self.fail_everywhere(["--set", "tensor.rows"], ["tensor.rows", "="])


class BadRunInputTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        self.model = example("matmul_fp32.onnx")

    def run_fails(self, extra_args, exit_code, words):
        return self.assertFailsCleanly(["run", self.model, *extra_args, "--outputs", "out", "--report", "rep"],
                                       exit_code, words)

    def test_missing_inputs_directory_is_named(self):
        self.run_fails(["--inputs", "no_such_dir"], USAGE, ["no_such_dir"])

    def test_inputs_directory_without_the_input_names_it(self):
        (self.tmp / "inputs").mkdir()
        self.run_fails(["--inputs", "inputs"], USAGE, ["'a'", "a.npy"])

    def test_input_npy_with_wrong_shape_names_input_and_shapes(self):
        (self.tmp / "inputs").mkdir()
        np.save(self.tmp / "inputs" / "a.npy", np.zeros((256, 511), np.float32))
        self.run_fails(["--inputs", "inputs"], USAGE, ["'a'", "[256,512]", "[256,511]"])

    def test_input_npy_with_unsupported_dtype_names_file_and_type(self):
        (self.tmp / "inputs").mkdir()
        np.save(self.tmp / "inputs" / "a.npy", np.zeros((256, 512), np.float64))
        self.run_fails(["--inputs", "inputs"], USAGE, ["a.npy", "<f8"])

    def test_missing_expected_directory_is_named(self):
        self.run_fails(["--expected", "no_such_dir"], USAGE, ["no_such_dir"])

    def test_device_memory_too_small_is_refused_naming_the_op(self):
        # Even with its weight streamed, the MatMul's operands do not fit 1 MiB of DRAM.
        self.run_fails(["--set", "dram.size_mib=1"], USAGE, ["op 'matmul_0'", "DRAM", "dram.size_mib"])

    def test_mismatch_with_expected_outputs_exits_1_naming_the_directory(self):
        # Not assertFailsCleanly: the outputs and report of a mismatching run are its diagnosis.
        (self.tmp / "expected").mkdir()
        np.save(self.tmp / "expected" / "y.npy", np.ones((256, 256), np.float32))
        result = self.npusim("run", self.model, "--expected", "expected")
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, RUN_FAILED, result.stderr)
        self.assertEqual(result.stderr.splitlines(), ["npusim: run failed: outputs differ from expected"])
        self.assertIn("MISMATCH", result.stdout)


class BadOutputPathTest(NpusimTestCase):
    """Output locations npusim cannot write: refused before any work (exit 2), the real reason,
    nothing half-written."""

    def test_unwritable_report_directory_is_refused_leaving_no_outputs(self):
        (self.tmp / "blocker").write_text("a file where the report directory should go\n")
        self.assertFailsCleanly(["run", example("matmul_fp32.onnx"), "--outputs", "out", "--report", "blocker/rep"],
                                USAGE, ["blocker/rep", "'blocker' is not a directory"])

    def test_dump_ir_into_a_file_is_refused(self):
        (self.tmp / "blocker").write_text("a file where the dump directory should go\n")
        self.assertFailsCleanly(["compile", example("mlp.onnx"), "--dump-ir", "blocker/ir"], USAGE,
                                ["blocker/ir", "'blocker' is not a directory"])

    def test_failed_compile_leaves_no_ir_dump(self):
        model = custom_op_model(self.tmp)
        self.assertFailsCleanly(["compile", model, "--dump-ir", "ir"], 2, ["Frobnicate"])

    def test_artifact_path_that_is_a_directory_gives_the_real_reason(self):
        (self.tmp / "artifacts").mkdir()
        line = self.assertFailsCleanly(["compile", example("matmul_fp32.onnx"), "-o", "artifacts"], USAGE,
                                       ["'artifacts' is a directory"])
        self.assertNotIn("Success", line)


class BadIrTest(NpusimTestCase):
    """Graph IR text npusim opt cannot take: a one-line error naming the file, line and column."""

    def test_opt_with_unknown_pass_lists_the_passes(self):
        (self.tmp / "g.ir").write_text("graph @g(%x: fp32[2]) -> (%x: fp32[2]) {\n  return %x\n}\n")
        self.assertFailsCleanly(["opt", "g.ir", "--pass", "fold-everything"], 2,
                                ["fold-everything", "fold-batch-norm"])

    def test_opt_of_malformed_ir_names_file_line_and_column(self):
        (self.tmp / "bad.ir").write_text("graph @g(%x: fp32[2]) -> (%y: fp32[2]) {\n  %y = Relu(%q)\n  return %y\n}\n")
        self.assertFailsCleanly(["opt", "bad.ir"], 2, ["bad.ir", "line 2, column 14", "%q"])

    def test_opt_of_missing_file_is_named(self):
        self.assertFailsCleanly(["opt", "nowhere.ir"], 2, ["nowhere.ir"])


class BadArtifactTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        self.ok("compile", example("matmul_fp32.onnx"), "--arch", "edge", "-o", "good.npuart")
        self.artifact = (self.tmp / "good.npuart").read_bytes()

    def write_with_flipped_byte(self, name, offset):
        data = bytearray(self.artifact)
        data[offset] ^= 0xFF
        (self.tmp / name).write_bytes(bytes(data))

    def test_flipped_byte_in_each_section_fails_its_checksum(self):
        manifest, payload_start = read_manifest(self.artifact)
        for section in manifest["sections"]:
            with self.subTest(section=section["name"]):
                self.write_with_flipped_byte("bad.npuart", payload_start + section["offset"] + section["size"] // 2)
                words = ["bad.npuart", section["name"], "checksum"]
                self.assertFailsCleanly(["run", "bad.npuart", "--outputs", "out", "--report", "rep"], USAGE, words)
                self.assertFailsCleanly(["disasm", "bad.npuart"], USAGE, words)

    def test_flipped_byte_in_manifest_fails_its_checksum(self):
        self.write_with_flipped_byte("bad.npuart", 40)
        self.assertFailsCleanly(["run", "bad.npuart", "--outputs", "out", "--report", "rep"], USAGE,
                                ["bad.npuart", "manifest", "checksum"])

    def test_truncated_artifact_is_rejected(self):
        (self.tmp / "cut.npuart").write_bytes(self.artifact[: len(self.artifact) // 2])
        self.assertFailsCleanly(["run", "cut.npuart", "--outputs", "out", "--report", "rep"], USAGE,
                                ["cut.npuart", "truncated"])

    def test_run_on_another_arch_names_both_archs(self):
        self.assertFailsCleanly(["run", "good.npuart", "--arch", "mobile", "--outputs", "out", "--report", "rep"],
                                USAGE, ["good.npuart", "'edge'", "'mobile'", "--force-arch"])

    def test_forced_onto_an_arch_too_small_for_it_the_firmware_refuses(self):
        # edge's blocks use more on-chip memory than tiny's 32 KiB SRAM holds.
        self.assertFailsCleanly(["run", "good.npuart", "--arch", "tiny", "--force-arch", "--outputs", "out"],
                                RUN_FAILED, ["onchip_out_of_range", "command 0"])

    def test_inspect_of_a_corrupt_artifact_names_the_section(self):
        manifest, payload_start = read_manifest(self.artifact)
        section = next(s for s in manifest["sections"] if s["name"] == "weights")
        self.write_with_flipped_byte("bad.npuart", payload_start + section["offset"])
        self.assertFailsCleanly(["inspect", "bad.npuart"], USAGE, ["bad.npuart", "weights"])

    def test_check_of_artifact_needs_the_model(self):
        self.assertFailsCleanly(["run", "good.npuart", "--check"], USAGE, ["--model"])

    def test_check_of_artifact_against_another_model_is_rejected(self):
        self.assertFailsCleanly(["run", "good.npuart", "--check", "--model", example("mlp.onnx")], USAGE,
                                ["mlp.onnx", "good.npuart"])

    def test_disasm_of_missing_file_is_named(self):
        self.assertFailsCleanly(["disasm", "missing.npuart"], USAGE, ["missing.npuart"])


class BadUsageTest(NpusimTestCase):
    def test_compile_without_output_or_inspection_asks_for_o(self):
        self.assertFailsCleanly(["compile", example("matmul_fp32.onnx")], USAGE, ["-o", "--emit", "--estimate"])

    def test_compile_with_unknown_emit_level_is_a_usage_error(self):
        self.assertFailsCleanly(["compile", example("matmul_fp32.onnx"), "--emit", "llvm"], USAGE, ["llvm"])

    def test_unknown_subcommand_is_named(self):
        self.assertFailsCleanly(["frobnicate"], USAGE, ["frobnicate"])

    def test_no_subcommand_is_a_usage_error(self):
        self.assertFailsCleanly([], USAGE, ["subcommand"])

    def test_unknown_flag_is_named(self):
        model = example("matmul_fp32.onnx")
        for args in (["compile", model, "-o", "out.npuart"], ["run", model, "--outputs", "out"], ["arch", "list"]):
            with self.subTest(command=args[0]):
                self.assertFailsCleanly([*args, "--frobnicate"], USAGE, ["--frobnicate"])

    def test_non_numeric_tolerance_is_a_usage_error(self):
        self.assertFailsCleanly(["run", example("matmul_fp32.onnx"), "--rtol", "tight", "--outputs", "out"],
                                USAGE, ["--rtol", "tight"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
