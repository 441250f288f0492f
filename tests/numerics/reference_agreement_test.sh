#!/usr/bin/env bash
# FP32 -> FP16 against NumPy and FP32 -> BF16 against PyTorch on >= 10^7 values, regenerated each
# run. Usage: reference_agreement_test.sh NPUGAP_TESTS WORKDIR
#   PYTHON (default /usr/bin/python3: Debian's, with numpy and torch)
set -euo pipefail
tests="$1"
dir="$2"
here="$(cd "$(dirname "$0")" && pwd)"
rc=0
"${PYTHON:-/usr/bin/python3}" "$here/reference_values.py" "$dir" || rc=$?
if [ "$rc" -eq 77 ]; then exit 77; fi  # numpy or torch missing: ctest reports it as skipped
[ "$rc" -eq 0 ] || exit "$rc"
NPUGAP_NUMERICS_REFERENCE_DIR="$dir" "$tests" --gtest_filter='ReferenceAgreementTest.*'
rm -rf "$dir"
