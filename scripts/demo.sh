#!/usr/bin/env bash
# The main job on the embedded default: generate the seed's SimpleNet and run npugap on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUGAP_BUILD_TESTS=OFF -DNPUGAP_BUILD_BENCH=OFF > /dev/null
cmake --build build --target npugap
mkdir -p out
./build/npugap example simplenet -o out/simplenet.onnx --batch 1
./build/npugap info out/simplenet.onnx
./build/npugap run out/simplenet.onnx --seed 0
