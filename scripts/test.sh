#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests, the ONNX conformance suite,
# the CLI tests and the generated-model tests. Then it runs the unit tests, the CLI tests and the
# whole conformance suite again under AddressSanitizer + UndefinedBehaviorSanitizer (a second
# build, build-asan/). NPUGAP_SANITIZERS=0 skips that pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
start=$(date +%s)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUGAP_BUILD_TESTS=ON -DNPUGAP_BUILD_BENCH=ON > /dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j 1)
echo "release tests done in $(( $(date +%s) - start )) s"

if [ "${NPUGAP_SANITIZERS:-1}" = "1" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUGAP_SANITIZE=ON -DNPUGAP_BUILD_BENCH=OFF > /dev/null
  cmake --build build-asan -j "$jobs" --target npugap_tests npugap_conformance npugap
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Every ctest test but the generated models (their PyTorch comparison is the release run's job
  # and would take most of the time budget under ASan); conformance runs all four folders.
  (cd build-asan && ctest --output-on-failure -j 1 -E "^models$")
  echo "sanitizer tests done in $(( $(date +%s) - start )) s"
fi
