#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite with ctest.
#   scripts/test.sh [ctest options]              the suite, in build/, after the sanitizer
#                                                subset (docs/FUZZING.md)
#   scripts/test.sh --sanitize [ctest options]   the whole suite built with AddressSanitizer
#                                                and UndefinedBehaviorSanitizer, in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."

configure_sanitized() {
    if [ ! -f build-sanitize/CMakeCache.txt ]; then
        cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSIM_SANITIZE=ON
    fi
    # Any report fails the test that caused it. SystemC and Python keep objects alive until
    # exit by design: leaks are not checked. The suppressions file says what it hides and why.
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:suppressions=$PWD/tests/support/asan_suppressions.txt"
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}

if [ "${1:-}" = "--sanitize" ]; then
    shift
    scripts/setup.sh --no-build
    configure_sanitized
    cmake --build build-sanitize -j "$(nproc)"
    cd build-sanitize
    ctest --output-on-failure -j "$(nproc)" "$@"
    exit
fi
NPUSIM_WERROR=ON scripts/setup.sh
# The sanitizer subset: the parsers of arch configs, artifacts, command streams and .npy files
# replay their fuzz corpora and mutations under the sanitizers (the whole suite sanitized does
# not fit CI's time on 2 cores: scripts/test.sh --sanitize).
subset=(fuzz_arch_config fuzz_artifact fuzz_commands fuzz_npy)
(
    configure_sanitized
    cmake --build build-sanitize -j "$(nproc)" --target "${subset[@]}"
    NPUSIM="$PWD/build/bin/npusim" NPUSIM_FUZZ_BIN="$PWD/build-sanitize/bin" NPUSIM_EXAMPLES="$PWD/build/examples" \
        /usr/bin/python3 tests/fuzz/replay_seeds.py "${subset[@]}"
)
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
