#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests, the ONNX conformance suite,
# the CLI tests and the generated-model tests. With NPUGAP_SANITIZERS=1 it then runs the unit
# tests, the CLI tests and the pytorch-* conformance folders again under AddressSanitizer +
# UndefinedBehaviorSanitizer (a second full build; not yet part of CI, see docs/conformance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
start=$(date +%s)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j 1)
echo "release tests done in $(( $(date +%s) - start )) s"

if [ "${NPUGAP_SANITIZERS:-0}" = "1" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUGAP_SANITIZE=ON -DNPUGAP_BUILD_BENCH=OFF > /dev/null
  cmake --build build-asan -j "$jobs" --target npugap_tests npugap_conformance npugap
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  (cd build-asan && ctest --output-on-failure -j 1 -E "^(conformance|models)$")
  ./build-asan/npugap_conformance --folders pytorch-converted,pytorch-operator --require-all pytorch-converted,pytorch-operator
  echo "sanitizer tests done in $(( $(date +%s) - start )) s"
fi
