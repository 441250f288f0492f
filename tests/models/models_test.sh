#!/usr/bin/env bash
# Generates the torchvision and transformer test models with Debian's PyTorch and checks npugap's
# outputs against PyTorch's.
#
# The models are a deterministic function of scripts/gen_models.py and the installed PyTorch, and
# exporting them is most of this test's time, so they are kept in a cache outside the build tree
# (NPUGAP_MODEL_CACHE, default ~/.cache/npugap), keyed by the script's hash and torch's version;
# MODEL_DIR becomes a link to that entry. A MODEL_DIR that is already a real directory is used as is;
# NPUGAP_MODEL_CACHE=off generates into MODEL_DIR itself.
set -euo pipefail
BIN=${1:?usage: models_test.sh NPUGAP_BINARY MODEL_DIR}
DIR=${2:?usage: models_test.sh NPUGAP_BINARY MODEL_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
GEN="$HERE/../../scripts/gen_models.py"
CACHE=${NPUGAP_MODEL_CACHE:-$HOME/.cache/npugap}
if [[ $CACHE != off && ( -L $DIR || ! -e $DIR ) ]]; then
  torch_version=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)')
  key=$(cat "$GEN" | sha256sum | cut -c1-16)
  entry="$CACHE/models-$key-torch$torch_version"
  mkdir -p "$entry"
  ln -sfn "$entry" "$DIR"
  echo "models cached in $entry"
fi
mkdir -p "$DIR"
start=$(date +%s)
/usr/bin/python3 "$GEN" "$DIR"
echo "models generated in $(( $(date +%s) - start )) s"
bash "$HERE/run_models_test.sh" "$BIN" "$DIR"
