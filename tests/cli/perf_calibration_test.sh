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
  local w=$1 labels=${5:-default}
  local reading=()
  [ "$labels" = default ] || reading=(--dtype-labels "$labels")
  "$NPUGAP" perf --kernels "$DIR/$w.csv" --target ascend910 "${reading[@]}" --json > "$TMP/$w.json"
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
# The headline: the default reading, typeid-shifted (the files' labels are one MindSpore TypeId
# early; docs/perf.md, "Dtype labels"; docs/fidelity.md, session 14, perfbnvec).
pin resnet50_bs32_train 13.0 12.3 -2.6
pin bert_seq128_bs32_train 12.2 11.6 -1.3
# The labels as they stand (float32 maps that are float16 in truth): pinned so a change to either
# reading shows; not a figure the model aims at since session 14.
pin resnet50_bs32_train 17.8 15.9 1.7 as-written
pin bert_seq128_bs32_train 46.1 44.2 5.3 as-written

echo "perf_calibration_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
