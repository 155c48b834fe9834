#!/usr/bin/python3
"""`npusim generate`: a decoder exported by torch with a past-KV signature runs its prompt as a
prefill and then one decode step per new token, its KV cache held in device memory and appended in
place; its greedy tokens are torch's, every step's logits the interpreter's. Bad requests fail in
one line with nothing written."""
import json
import sys
import unittest
from pathlib import Path

from npusim_cli import NpusimTestCase, example

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import gpt_kv  # noqa: E402  (the example decoder's torch module, export and greedy generation)

LAYERS, DIM, HEADS, VOCAB = 2, 64, 4, 256


class GenerateTest(NpusimTestCase):
    def export(self):
        module = gpt_kv.build(vocab=VOCAB, context=128, dim=DIM, heads=HEADS, layers=LAYERS, seed=3)
        gpt_kv.export(module, self.tmp / "gpt.onnx")
        return module

    def test_greedy_tokens_are_torchs_and_every_step_matches_the_interpreter(self):
        module = self.export()
        out = self.ok("generate", "gpt.onnx", "--arch", "edge", "--prompt-len", 12, "--new-tokens", 6, "--batch", 2,
                      "--check", "--report", "rep")
        self.assertIn("greedy tokens agree", out)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        g = report["generation"]
        (request,) = g["requests"]
        self.assertEqual(request["tokens"], gpt_kv.greedy(module, request["prompt"], 6))
        self.assertEqual([len(p) for p in request["prompt"]], [12, 12])
        self.assertLess(g["check"]["max_logit_error"], 1e-3)
        self.assertTrue(g["check"]["tokens_agree"])
        # One prefill, then a decode step per token but the last; the cache grows by one each.
        steps = g["steps"]
        self.assertEqual([s["phase"] for s in steps], ["prefill"] + ["decode"] * 5)
        self.assertEqual([s["cache_length"] for s in steps], [0, 12, 13, 14, 15, 16])
        cache = g["cache"]
        self.assertEqual(cache["capacity_tokens"], 18)
        self.assertEqual(cache["bytes"], 2 * LAYERS * 2 * DIM * 18 * 4)  # keys and values, batch 2, fp32
        # A decode step stores only its new entries (and its logits), not the cache again.
        for s in steps[1:]:
            self.assertLess(s["dram_bytes_written"], cache["bytes"] // 4)
        self.assertGreater(g["time_to_first_token"]["cycles"], 0)
        tpot = g["time_per_output_token"]
        self.assertLessEqual(tpot["p50_cycles"], tpot["p99_cycles"])
        self.assertGreater(g["tokens_per_second"], 0)
        self.assertGreater(g["throughput_tokens_per_second"], 0)
        # A memory-bound decode step is a finding, at the op that reads the most.
        self.assertEqual(g["plans"]["decode"]["bound"], "memory")
        (finding,) = [f for f in report["findings"] if f["kind"] == "decode_memory_bound"]
        self.assertIn("of weights", finding["message"])
        self.assertIn("--requests", finding["hint"])
        # The report proper is the last decode step's: its ops, its cycles and its energy.
        self.assertEqual(report["total_cycles"], steps[-1]["job_cycles"])
        self.assertAlmostEqual(steps[-1]["energy_uj"], report["energy"]["total_pj"] * 1e-6, places=6)
        # Energy per token: the steps' energies add up, the decode steps' over the 2 x 5 tokens
        # they made; the 12-token prompt's step costs more than a one-token step.
        energy = g["energy"]
        self.assertAlmostEqual(energy["total_uj"], sum(s["energy_uj"] for s in steps), places=6)
        self.assertAlmostEqual(energy["prefill_uj"], steps[0]["energy_uj"], places=6)
        self.assertAlmostEqual(energy["decode_uj_per_token"], sum(s["energy_uj"] for s in steps[1:]) / 10, places=6)
        self.assertGreater(energy["prefill_uj"], max(s["energy_uj"] for s in steps[1:]))
        self.assertIn("uJ per decode token", out)
        self.assertTrue(any(op["type"] == "MatMul" for op in report["ops"]))
        self.assertIn("## Generation", (self.tmp / "rep" / "report.md").read_text())
        self.assertIn('id="generation"', (self.tmp / "rep" / "report.html").read_text())
        self.assertTrue((self.tmp / "rep" / "plots" / "tokens.png").is_file())
        # trace.json: every step's slice on a track of its own, and the prefill's ops named apart.
        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]
        self.assertEqual([e["name"].split(" (")[0] for e in trace if e.get("cat") == "step"],
                         ["prefill request 0"] + [f"decode step {i}" for i in range(1, 6)])
        self.assertTrue(any(e["name"].startswith("prefill /") for e in trace if e.get("ph") == "X"))

    def test_concurrent_requests_keep_their_own_tokens_and_batching_raises_throughput(self):
        module = self.export()
        args = ["--arch", "server", "--prompt-len", 10, "--new-tokens", 5, "--check"]
        runs = {}
        for schedule, requests in (("batch", 1), ("batch", 2), ("round-robin", 2)):
            report = f"{schedule}{requests}"
            self.ok("generate", "gpt.onnx", *args, "--requests", requests, "--schedule", schedule, "--report", report)
            runs[report] = json.loads((self.tmp / report / "report.json").read_text())["generation"]
        for name in ("batch2", "round-robin2"):
            with self.subTest(schedule=name):
                g = runs[name]
                self.assertEqual(len(g["requests"]), 2)
                prompts = [r["prompt"] for r in g["requests"]]
                self.assertNotEqual(prompts[0], prompts[1])
                for r in g["requests"]:  # each request's tokens are its own run's: torch's on its prompt
                    self.assertEqual(r["tokens"], gpt_kv.greedy(module, r["prompt"], 5))
                self.assertTrue(g["check"]["tokens_agree"])
                # The second request waits for the first one's prefill: contention shows per request.
                first = [r["time_to_first_token_cycles"] for r in g["requests"]]
                self.assertLess(first[0], first[1])
        # The first request of two has the single run's prompt and tokens.
        self.assertEqual(runs["batch2"]["requests"][0]["prompt"], runs["batch1"]["requests"][0]["prompt"])
        self.assertEqual(runs["batch2"]["requests"][0]["tokens"], runs["batch1"]["requests"][0]["tokens"])
        # Batched decode steps read the weights once for both requests: more tokens per second than
        # one request alone; taking turns cannot beat one request alone.
        throughput = {name: g["throughput_tokens_per_second"] for name, g in runs.items()}
        self.assertGreater(throughput["batch2"], 1.2 * throughput["batch1"])
        self.assertLess(throughput["round-robin2"], throughput["batch2"])
        decode = [s for s in runs["batch2"]["steps"] if s["phase"] == "decode"]
        self.assertTrue(all(s["request"] == "all" and len(s["tokens"]) == 2 for s in decode))

    def test_requests_of_different_lengths_leave_the_batch_when_done(self):
        module = self.export()
        for schedule in ("batch", "round-robin"):
            with self.subTest(schedule=schedule):
                report = f"rep-{schedule}"
                self.ok("generate", "gpt.onnx", "--requests", 3, "--prompt-len", "6,11,6", "--new-tokens", "3,7,5",
                        "--schedule", schedule, "--check", "--report", report)
                g = json.loads((self.tmp / report / "report.json").read_text())["generation"]
                self.assertEqual(g["prompt_lengths"], [6, 11, 6])
                self.assertEqual(g["cache"]["capacity_tokens"], 18)  # the longest request: 11 + 7
                for r, count in zip(g["requests"], (3, 7, 5)):
                    self.assertEqual(r["tokens"], gpt_kv.greedy(module, r["prompt"], count))
                self.assertTrue(g["check"]["tokens_agree"])
                decode = [s for s in g["steps"] if s["phase"] == "decode"]
                # Batched: one step per token of the longest request; round-robin: one per token of each.
                self.assertEqual(len(decode), 6 if schedule == "batch" else 2 + 6 + 4)
        self.assertFailsCleanly(["generate", "gpt.onnx", "--requests", 3, "--prompt-len", "6,11", "--new-tokens", 2], 2,
                                ["--prompt-len gives 2 values for 3 requests"])

    def test_a_prefill_graph_of_its_own_runs_the_prompt(self):
        module = self.export()
        gpt_kv.export(module, self.tmp / "prefill.onnx", past=False)
        self.ok("generate", "gpt.onnx", "--prefill-model", "prefill.onnx", "--prompt-len", 9, "--new-tokens", 5, "--check",
                "--report", "rep")
        g = json.loads((self.tmp / "rep" / "report.json").read_text())["generation"]
        (request,) = g["requests"]
        self.assertEqual(request["tokens"], gpt_kv.greedy(module, request["prompt"], 5))
        self.assertTrue(g["check"]["tokens_agree"])
        self.assertFailsCleanly(["generate", "gpt.onnx", "--prefill-model", "gpt.onnx", "--prompt-len", 4, "--new-tokens", 2],
                                2, ["prefill model has a past input"])
        self.assertFailsCleanly(["generate", "gpt.onnx", "--prefill-model", example("mlp.onnx"), "--prompt-len", 4,
                                 "--new-tokens", 2], 2, ["prefill model's input 'x'"])

    def test_the_shipped_example_generates_on_every_preset(self):
        for arch in ("edge", "mobile", "server"):
            with self.subTest(arch=arch):
                out = self.ok("generate", example("gpt_kv_decoder.onnx"), "--arch", arch, "--prompt-len", 16,
                              "--new-tokens", 4, "--check")
                self.assertIn("greedy tokens agree", out)
                self.assertRegex(out, r"decode +(memory|compute)-bound")

    def test_the_random_sampler_is_seeded(self):
        self.export()
        run = lambda seed: self.ok("generate", "gpt.onnx", "--prompt-len", 4, "--new-tokens", 8, "--sampler", "random",
                                   "--seed", seed).splitlines()[-1]
        self.assertEqual(run(5), run(5))
        self.assertNotEqual(run(5), run(6))

    def test_bad_requests_fail_in_one_line(self):
        self.export()
        self.ok("compile", "gpt.onnx", "--dim", "batch=1", "--dim", "seq=1", "--dim", "past=4", "--dim", "total=5",
                "-o", "gpt.npuart")
        cases = [
            (["--prompt-len", 8, "--new-tokens", 4, "--capacity", 10], ["capacity of 10", "need 11", "--capacity"]),
            (["--prompt-len", 200, "--new-tokens", 4, "--capacity", 100], ["capacity", "--capacity"]),
            (["--prompt-len", 0, "--new-tokens", 4], ["--prompt-len"]),
            (["--prompt-len", 4, "--new-tokens", 4, "--sampler", "beam"], ["--sampler", "beam"]),
            (["--prompt-len", 4, "--new-tokens", 4, "--schedule", "fifo"], ["--schedule", "fifo"]),
            (["--prompt-len", 4, "--new-tokens", 4, "--requests", 0], ["--requests"]),
            (["--prompt-len", 4, "--new-tokens", 4, "--dim", "past=3"], ["--dim past", "set by generate"]),
        ]
        for args, words in cases:
            with self.subTest(args=args):
                self.assertFailsCleanly(["generate", "gpt.onnx", *args, "--report", "rep"], 2, words)
        self.assertFailsCleanly(["generate", example("mlp.onnx"), "--prompt-len", 4, "--new-tokens", 2],
                                2, ["no past key/value inputs"])
        self.assertFailsCleanly(["generate", "gpt.npuart", "--prompt-len", 4, "--new-tokens", 2], 2, ["artifact"])
        self.assertFailsCleanly(["generate", "gpt.onnx", "--prompt-len", 4, "--new-tokens", 2, "--precision", "int8",
                                 "--calibrate-inputs", "."], 2, ["int8"])


if __name__ == "__main__":
    unittest.main()
