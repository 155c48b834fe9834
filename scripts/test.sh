#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite with ctest.
#   scripts/test.sh [ctest options]              the suite, in build/
#   scripts/test.sh --sanitize [ctest options]   the suite built with AddressSanitizer and
#                                                UndefinedBehaviorSanitizer, in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
    shift
    scripts/setup.sh --no-build
    if [ ! -f build-sanitize/CMakeCache.txt ]; then
        cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSIM_SANITIZE=ON
    fi
    cmake --build build-sanitize -j "$(nproc)"
    cd build-sanitize
    # Any report fails the test that caused it. SystemC and Python keep objects alive until
    # exit by design: leaks are not checked.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    ctest --output-on-failure -j "$(nproc)" "$@"
    exit
fi
scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
