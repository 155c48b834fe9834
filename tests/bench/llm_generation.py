#!/usr/bin/python3
"""LLM decoding on the NPU, side by side in one run: a GPT-style decoder exported by torch with a
past-KV signature (examples/gpt_kv.py; 6 layers, d 512, 8 heads, vocab 8k, random weights)
generates after a prompt with `npusim generate --check` on each preset; prints time to first
token, time per output token, tokens per second, DRAM per token, the decode step against its
memory roofline and its bound, the largest logit error against the interpreter, whether the greedy
tokens equal torch's, and the run's peak RSS. Then, on one preset, two concurrent requests
(batched and round-robin) against one, and a sweep of DRAM bandwidth: decode's time per token
follows the bandwidth while it is memory-bound. Figures, not assertions.

    tests/bench/llm_generation.py [--build DIR] [--cache DIR] [--presets edge,mobile,server]
                                  [--prompt 128] [--new 64] [--sweep-preset server] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
import gpt_kv  # noqa: E402

# One process may take this much address space: a runaway plan fails instead of taking the machine.
ADDRESS_LIMIT = 12 << 30
CONFIG = dict(vocab=8192, context=512, dim=512, heads=8, layers=6, seed=0)


def generate(npusim, model, report, *args):
    """Runs npusim generate under the address limit; returns (report.json's generation section, peak RSS MiB)."""
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))"
    process = subprocess.Popen([sys.executable, "-c", f"{limit}; import os, sys; os.execv(sys.argv[1], sys.argv[1:])",
                                str(npusim), "generate", str(model), "--report", str(report), *map(str, args)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not (report / "report.json").is_file():
        raise SystemExit(f"npusim generate {' '.join(map(str, args))} failed:\n{stderr}")
    return json.loads((report / "report.json").read_text())["generation"], usage.ru_maxrss / 1024


def row(g, rss, torch_tokens=None):
    ttft, tpot = g["time_to_first_token"], g["time_per_output_token"]
    roof = g["decode_roofline"]
    decode = g["plans"]["decode"]
    same = "" if torch_tokens is None else ("yes" if [r["tokens"] for r in g["requests"]] == torch_tokens else "NO")
    error = g["check"]["max_logit_error"] if g["check"] else None
    return {"arch": g["arch"], "ttft_ms": ttft["ms"], "tpot_ms": tpot["mean_ms"], "tpot_p50": tpot["p50_cycles"],
            "tpot_p99": tpot["p99_cycles"], "tokens_per_second": g["tokens_per_second"],
            "throughput": g["throughput_tokens_per_second"], "dram_mib_per_token": g["dram_bytes_per_token"] / 2**20,
            "step_over_roofline": roof["step_over_roofline"], "bound": decode["bound"], "max_logit_error": error,
            "tokens_equal_torch": same, "peak_rss_mib": rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--cache", default=None, help="where the exported model is kept (default BUILD/zoo)")
    parser.add_argument("--presets", default="edge,mobile,server")
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--new", type=int, default=64)
    parser.add_argument("--sweep-preset", default="server")
    parser.add_argument("--json")
    a = parser.parse_args()
    npusim = Path(a.build) / "bin" / "npusim"
    cache = Path(a.cache or Path(a.build) / "zoo") / "gpt_kv_large"
    cache.mkdir(parents=True, exist_ok=True)
    model = cache / "gpt_kv_large.onnx"
    module = gpt_kv.build(**CONFIG)
    if not model.is_file():
        gpt_kv.export(module, model)
    results = {"presets": [], "concurrency": [], "bandwidth": []}
    with tempfile.TemporaryDirectory(prefix="npusim_llm_") as work:
        work = Path(work)
        print(f"{'arch':8} {'TTFT ms':>8} {'TPOT ms':>8} {'p50':>9} {'p99':>9} {'tok/s':>8} {'DRAM MiB/tok':>12} "
              f"{'step/roof':>9} {'bound':>7} {'logit err':>9} {'=torch':>6} {'RSS MiB':>8}")
        for preset in a.presets.split(","):
            g, rss = generate(npusim, model, work / preset, "--arch", preset, "--prompt-len", a.prompt, "--new-tokens", a.new,
                              "--check")
            expected = [gpt_kv.greedy(module, r["prompt"], a.new) for r in g["requests"]]
            r = row(g, rss, expected)
            results["presets"].append(r)
            print(f"{r['arch']:8} {r['ttft_ms']:8.3f} {r['tpot_ms']:8.3f} {r['tpot_p50']:9} {r['tpot_p99']:9} "
                  f"{r['tokens_per_second']:8.0f} {r['dram_mib_per_token']:12.2f} {r['step_over_roofline']:9.2f} "
                  f"{r['bound']:>7} {r['max_logit_error']:9.1e} {r['tokens_equal_torch']:>6} {r['peak_rss_mib']:8.0f}")

        print(f"\nconcurrent requests on {a.sweep_preset} (throughput: every token over the run)")
        for requests, schedule in ((1, "batch"), (2, "batch"), (2, "round-robin"), (4, "batch")):
            g, rss = generate(npusim, model, work / f"c{requests}{schedule}", "--arch", a.sweep_preset, "--prompt-len",
                              a.prompt, "--new-tokens", a.new, "--requests", requests, "--schedule", schedule)
            firsts = [r["time_to_first_token_cycles"] for r in g["requests"]]
            entry = {"requests": requests, "schedule": schedule, "throughput": g["throughput_tokens_per_second"],
                     "tpot_ms": g["time_per_output_token"]["mean_ms"], "first_token_cycles": firsts, "peak_rss_mib": rss}
            results["concurrency"].append(entry)
            print(f"  {requests} x {schedule:11} throughput {entry['throughput']:8.0f} tok/s, TPOT {entry['tpot_ms']:.3f} ms, "
                  f"first tokens {firsts} cycles, RSS {rss:.0f} MiB")

        print(f"\nDRAM bandwidth on {a.sweep_preset}: decode's time per token")
        for bandwidth in (102.4, 204.8, 409.6, 819.2, 1638.4):
            g, rss = generate(npusim, model, work / f"bw{bandwidth}", "--arch", a.sweep_preset, "--set",
                              f"dram.bandwidth_gbps={bandwidth}", "--prompt-len", a.prompt, "--new-tokens", 16)
            entry = {"bandwidth_gbps": bandwidth, "tpot_ms": g["time_per_output_token"]["mean_ms"],
                     "step_over_roofline": g["decode_roofline"]["step_over_roofline"], "bound": g["plans"]["decode"]["bound"]}
            results["bandwidth"].append(entry)
            print(f"  {bandwidth:7.1f} GB/s: TPOT {entry['tpot_ms']:.3f} ms, {entry['step_over_roofline']:.2f}x the memory "
                  f"roofline, {entry['bound']}-bound")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
