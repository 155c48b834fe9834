#!/usr/bin/env bash
# Sets up and builds npusim, then compiles the bundled example model (a two-layer MLP) for the
# default `edge` preset, simulates it with its outputs checked against the reference
# interpreter, and writes the reports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

npusim=build/bin/npusim
model=build/examples/mlp.onnx
out=build/demo
mkdir -p "$out"

echo
echo "== compile $model for the edge NPU"
"$npusim" compile "$model" --arch edge -o "$out/mlp.npuart" --estimate
echo
echo "== simulate it (runtime -> driver -> firmware -> SystemC NPU), check against the reference"
"$npusim" run "$out/mlp.npuart" --model "$model" --check --outputs "$out/outputs" --report "$out/report"
echo
echo "Reports: $out/report/report.html (open in a browser), report.md, report.json, plots/*.png, trace.json (open in https://ui.perfetto.dev)"
echo "Commands: $npusim disasm $out/mlp.npuart | less"
