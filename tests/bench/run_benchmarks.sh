#!/usr/bin/env bash
# Runs the simulation-speed benchmarks side by side and prints their figures (medians of
# several runs: the machines are shared and noisy) and ratios: a GEMM and a DRAM copy, whole
# networks phase by phase on every preset (network_speed.py), then a sweep of GRID^3 ResNet-18
# points (sweep_speed.py; GRID 10 is the 1,000-point sweep, about ten minutes; 0 skips it).
#   tests/bench/run_benchmarks.sh [BUILD_DIR] [RUNS] [GRID]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
grid=${3:-10}
here=$(dirname "$0")
bench="$build/bin/sim_speed"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

# median VALUE...: the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# measure FIELD ARGS...: runs sim_speed ARGS `runs` times, prints the median of FIELD.
measure() {
    local field=$1
    shift
    local values=()
    for _ in $(seq "$runs"); do
        values+=("$("$bench" "$@" | tr ' ' '\n' | awk -F= -v f="$field" '$1 == f {print $2}')")
    done
    median "${values[@]}"
}

echo "simulation speed, co-simulation phase only, median of $runs runs"
gemm_timing=$(measure mcycles_per_second gemm --size 2048 --timing-only)
gemm_full_seconds=$(measure host_seconds gemm --size 1024)
gemm_timing_seconds=$(measure host_seconds gemm --size 1024 --timing-only)
copy_transactions=$(measure mtransactions_per_second copy --timing-only)
printf '  int8 GEMM 2048^3 on edge, timing-only: %8.2f M simulated cycles per host second\n' "$gemm_timing"
printf '  64 MiB DRAM copy on edge, timing-only: %8.2f M DRAM burst transactions per host second\n' "$copy_transactions"
printf '  int8 GEMM 1024^3 on edge: full %.3f s, timing-only %.3f s, ratio %.1fx\n' \
    "$gemm_full_seconds" "$gemm_timing_seconds" "$(echo "$gemm_full_seconds / $gemm_timing_seconds" | bc -l)"
gemm_model_seconds=$(measure host_seconds gemm --size 256)
gemm_rtl_seconds=$(measure host_seconds gemm --size 256 --rtl)
printf '  int8 GEMM 256^3 on edge: model core %.3f s, RTL core (Verilated 16x16 array) %.3f s, ratio %.1fx\n' \
    "$gemm_model_seconds" "$gemm_rtl_seconds" "$(echo "$gemm_rtl_seconds / $gemm_model_seconds" | bc -l)"
echo
"$build/bin/gemm_kernels"
echo
/usr/bin/python3 "$here/network_speed.py" --build "$build" --runs "$runs"
if [ "$grid" -gt 0 ]; then
    echo
    /usr/bin/python3 "$here/sweep_speed.py" --build "$build" --grid "$grid"
fi
