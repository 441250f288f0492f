#!/usr/bin/env bash
# Installs the Debian packages npugap needs to build and test. Idempotent: installs nothing
# when every package is already present.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache chromium
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libdnnl-dev ocl-icd-opencl-dev zlib1g-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-numpy python3-onnx python3-torch python3-torchvision
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
