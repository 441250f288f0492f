#!/usr/bin/env bash
# The main job: generate the seed's SimpleNet (symbolic batch) and run `npugap analyze` on it for
# the seed's story — trained on cpu-dev at batch 32, deployed at batch 64 as a compiled graph on the Ascend
# 910B2 — and the same for the Ascend 310P3 (saturation mode, 24 GiB). docs/walkthrough.md
# explains each number of these reports.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUGAP_BUILD_TESTS=OFF -DNPUGAP_BUILD_BENCH=OFF > /dev/null
cmake --build build --target npugap
mkdir -p out
./build/npugap example simplenet -o out/simplenet.onnx --dynamic-batch
for target in ascend910b2 ascend310p3; do
  echo
  ./build/npugap analyze out/simplenet.onnx --target "$target" --batch 64 --dev-target cpu-dev --dev-batch 32 \
    --html "out/report-$target.html"
done
