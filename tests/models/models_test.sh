#!/usr/bin/env bash
# Generates the torchvision and transformer test models with Debian's PyTorch (cached in
# MODEL_DIR between runs) and checks npugap's outputs against PyTorch's.
set -euo pipefail
BIN=${1:?usage: models_test.sh NPUGAP_BINARY MODEL_DIR}
DIR=${2:?usage: models_test.sh NPUGAP_BINARY MODEL_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
start=$(date +%s)
/usr/bin/python3 "$HERE/../../scripts/gen_models.py" "$DIR"
echo "models generated in $(( $(date +%s) - start )) s"
bash "$HERE/run_models_test.sh" "$BIN" "$DIR"
