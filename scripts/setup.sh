#!/usr/bin/env bash
# Installs npusim's Debian dependencies (skipping those already present), then configures and
# builds the project into build/. Safe to run again: it only installs and rebuilds what changed.
#   scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    build-essential cmake ninja-build pkg-config git
    libsystemc-dev verilator libdnnl-dev libeigen3-dev libopenblas-dev
    llvm-15-dev
    libonnx-dev libprotobuf-dev protobuf-compiler
    nlohmann-json3-dev libcli11-dev libsqlite3-dev zlib1g-dev libssl-dev libjemalloc-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    python3 python3-onnx python3-numpy python3-matplotlib python3-jsonschema
    python3-torch python3-torchvision
    libonnx-testdata
    chromium
    slurm-wlm munge
    clang libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        sudo=sudo
    else
        sudo=
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" = "--no-build" ]; then
    exit 0
fi

build_type=${NPUSIM_BUILD_TYPE:-Release}
# NPUSIM_WERROR=ON (scripts/test.sh sets it) makes compiler warnings in the project's code errors.
if [ ! -f build/CMakeCache.txt ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DNPUSIM_WERROR="${NPUSIM_WERROR:-OFF}"
elif [ -n "${NPUSIM_WERROR:-}" ]; then
    cmake -S . -B build -DNPUSIM_WERROR="$NPUSIM_WERROR"
fi
cmake --build build -j "$(nproc)"
