#!/usr/bin/env bash
# Coverage-guided fuzzing of every input boundary with libFuzzer (clang), AddressSanitizer and
# UndefinedBehaviorSanitizer (docs/FUZZING.md):
#   scripts/fuzz.sh [SECONDS] [TARGET...]      default: 60 s each, every target
# Builds the targets in build-fuzz/, seeds each from the project's examples and ONNX's test
# data (tests/fuzz/seed_corpora.py; needs build/ from scripts/setup.sh), runs it for SECONDS
# and keeps what it learned in build-fuzz/corpus/<target>. A crash leaves its input in
# build-fuzz/crash-<target>-*: add it to tests/fuzz/regressions/<target>/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
    targets=(fuzz_arch_config fuzz_artifact fuzz_commands fuzz_npy fuzz_tensor_proto fuzz_onnx_import)
fi
scripts/setup.sh
if [ ! -f build-fuzz/CMakeCache.txt ]; then
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSIM_LIBFUZZER=ON
fi
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
NPUSIM=build/bin/npusim NPUSIM_EXAMPLES=build/examples /usr/bin/python3 tests/fuzz/seed_corpora.py "$seeds"
export ASAN_OPTIONS=detect_leaks=0
# Undefined behaviour ends the run like a crash, its input kept.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for target in "${targets[@]}"; do
    corpus=build-fuzz/corpus/$target
    mkdir -p "$corpus"
    log=build-fuzz/$target.log
    if build-fuzz/bin/"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix=build-fuzz/crash-"$target"- -print_final_stats=1 "$corpus" "$seeds/$target" > "$log" 2>&1; then
        result=clean
    else
        result="FAILED (see $log)"
        status=1
    fi
    echo "$target (${seconds} s): $result"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|^#[0-9]+.*(DONE|pulse)" "$log" | tail -3 | sed 's/^/  /'
    grep -E "cov: [0-9]+" "$log" | tail -1 | sed -E 's/.*(cov: [0-9]+ ft: [0-9]+ corp: [0-9]+).*/  \1/'
done
exit "$status"
