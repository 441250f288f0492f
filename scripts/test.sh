#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests, the ONNX conformance suite,
# the CLI tests and the generated-model tests. Then it runs the unit tests, the CLI tests and the
# whole conformance suite again under AddressSanitizer + UndefinedBehaviorSanitizer (a second
# build, build-asan/). NPUGAP_SANITIZERS=0 skips that pass. Times and choices: docs/ci.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
start=$(date +%s)
phase() { echo "$1 done in $(( $(date +%s) - start )) s (since the start)"; }
# ctest -j runs the long tests first (COST in CMakeLists.txt) next to the short ones. A test
# without a TIMEOUT of its own is stopped after an hour, far above any test's time under ASan, so
# that a hang fails CI instead of holding it without limit.
run_ctest() { ctest --output-on-failure -j "$jobs" --timeout 3600 "$@"; }

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUGAP_BUILD_TESTS=ON -DNPUGAP_BUILD_BENCH=ON > /dev/null
cmake --build build -j "$jobs"
phase "release build"
(cd build && run_ctest)
phase "release tests"

if [ "${NPUGAP_SANITIZERS:-1}" = "1" ]; then
  # -O1 with line tables only (-g1) instead of RelWithDebInfo's -O2 -g: what ASan's documentation
  # suggests for reasonable speed, with the file:line of every frame in a report; full debug info
  # (types, variables) is what made this build slow and its binaries ~0.5 GB. NDEBUG as in the
  # release build, so both passes run the same code. No benchmarks, and only the three programs
  # ctest runs.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DNPUGAP_SANITIZE=ON -DNPUGAP_BUILD_BENCH=OFF > /dev/null
  cmake --build build-asan -j "$jobs" --target npugap_tests npugap_conformance npugap
  phase "sanitizer build"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Every ctest test but the generated models (their PyTorch comparison is the release run's job
  # and would take most of the time budget under ASan); conformance runs all four folders.
  (cd build-asan && run_ctest -E "^models$")
  phase "sanitizer tests"
fi
