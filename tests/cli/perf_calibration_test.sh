#!/usr/bin/env bash
# `npugap perf --kernels` on the two real Ascend 910 calibration workloads (ResNet-50 and BERT-base
# MindSpore training steps). The issue's targets (mean |error| <= 15% per op type over the op types
# that make up 90% of the time, summed time within +-10%) are NOT met yet (docs/fidelity.md), so
# this test pins the figures the model reaches: a change that moves them by more than 0.5
# percentage points fails here and has to update docs/fidelity.md with the new figures.
set -uo pipefail
NPUGAP=${1:?usage: perf_calibration_test.sh NPUGAP_BINARY CALIBRATION_DIR}
DIR=${2:?usage: perf_calibration_test.sh NPUGAP_BINARY CALIBRATION_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
if [ ! -d "$DIR" ]; then
  echo "perf_calibration_test: SKIPPED: $DIR not found (the shared calibration data is not present)"
  exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# pin WORKLOAD CORE_WEIGHTED_MAPE_PCT CORE_MAPE_PCT SUM_ERROR_PCT [DTYPE_LABELS]
pin() {
  local w=$1 labels=${5:-as-written}
  "$NPUGAP" perf --kernels "$DIR/$w.csv" --target ascend910 --dtype-labels "$labels" --json > "$TMP/$w.json"
  check "$w: exit 0" test $? -eq 0
  check "$w: no unknown kernel types" /usr/bin/python3 -c "
import json,sys; j=json.load(open('$TMP/$w.json')); sys.exit(0 if j['unknown']==[] else 1)"
  check "$w ($labels): figures (core w.mape $2%, mape $3%, sum $4%)" /usr/bin/python3 -c "
import json,sys
j=json.load(open('$TMP/$w.json'))
got=(j['core']['weighted_mape_pct'], j['core']['mape_pct'], j['sum_error_pct'])
want=($2, $3, $4)
print('$w ($labels): core weighted %.1f%% unweighted %.1f%% sum %+.1f%%' % got)
sys.exit(0 if all(abs(g-w) <= 0.5 for g, w in zip(got, want)) else 1)"
}
pin resnet50_bs32_train 18.7 16.4 -10.7
pin resnet50_bs32_train 22.6 18.9 -1.6
pin bert_seq128_bs32_train 20.4 17.2 -4.0
# The same files with each dtype label read as the MindSpore TypeId after it (docs/perf.md, "Dtype
# labels"; docs/fidelity.md, session 14, perfbnvec): not the headline, pinned to follow the reading
# the labels' evidence favours.
pin resnet50_bs32_train 18.3 15.6 -15.1 typeid-shifted
pin resnet50_bs32_train 19.0 16.6 -11.5 typeid-shifted
pin bert_seq128_bs32_train 28.4 27.1 -33.4 typeid-shifted
pin resnet50_bs32_train 19.0 16.5 -9.6
pin bert_seq128_bs32_train 46.8 44.3 5.4
# The same files with each dtype label read as the MindSpore TypeId after it (docs/perf.md, "Dtype
# labels"; docs/fidelity.md, session 14, perfbnvec): not the headline, pinned to follow the reading
# the labels' evidence favours.
pin resnet50_bs32_train 19.8 17.1 -16.9 typeid-shifted
pin bert_seq128_bs32_train 28.0 27.0 -32.6 typeid-shifted
pin resnet50_bs32_train 19.0 16.5 -9.6
pin bert_seq128_bs32_train 26.0 23.1 -11.1
# The same files with each dtype label read as the MindSpore TypeId after it (docs/perf.md, "Dtype
# labels"; docs/fidelity.md, session 14, perfbnvec): not the headline, pinned to follow the reading
# the labels' evidence favours.
pin resnet50_bs32_train 19.8 17.1 -16.9 typeid-shifted
pin bert_seq128_bs32_train 24.3 22.7 -9.1 typeid-shifted

echo "perf_calibration_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
