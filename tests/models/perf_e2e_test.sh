#!/usr/bin/env bash
# End-to-end performance checks against published Ascend 910 figures (docs/fidelity.md, perf
# section): ResNet-50 training at batch 256, mixed precision, one card, graph mode (MindSpore,
# 2,115 images/s) and eager mode (PyTorch on the NPU, 1,680 images/s); BERT-Large pretraining,
# 24 layers, seq 128, batch 96 (MindSpore, 269 sentences/s). Sources:
# perf-memory-comm-anchors §1.8 [S15][S17]. And BERT-base lowered at the shapes of the BERT-base
# kernel records, its kernel sum against theirs (the last row).
#
# The models are generated here (scripts/gen_perf_models.py: a training-mode torchvision export
# and a BERT-Large graph with sparse external weights), or taken from $NPUGAP_PERF_MODELS.
# Each check asserts the band the prediction reaches today; the real error is printed and
# written down in docs/fidelity.md.
set -uo pipefail
NPUGAP=${1:?usage: perf_e2e_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$HERE/../..
DIR=${NPUGAP_PERF_MODELS:-$(mktemp -d)}
[ -n "${NPUGAP_PERF_MODELS:-}" ] || trap 'rm -rf "$DIR"' EXIT
passed=0
failed=0
source "$ROOT/tests/cli/common.sh"

/usr/bin/python3 "$ROOT/scripts/gen_perf_models.py" "$DIR" --only resnet50_train,bert_large,bert_base \
  > /dev/null 2> "$DIR/gen.err" ||
  { echo "FAIL: model generation: $(tail -3 "$DIR/gen.err")"; exit 1; }

# rate NAME PUBLISHED LOW HIGH SAMPLES ARGS...: predicted samples/s within [LOW, HIGH] x published.
rate() {
  local name=$1 published=$2 low=$3 high=$4 samples=$5
  shift 5
  "$NPUGAP" perf "$@" --json > "$DIR/$name.json" 2> "$DIR/$name.err"
  if [ $? -ne 0 ]; then
    failed=$((failed + 1)); echo "FAIL: $name: $(cat "$DIR/$name.err")"; return
  fi
  local out
  out=$(/usr/bin/python3 -c "
import json; j=json.load(open('$DIR/$name.json')); r=$samples*1e3/j['iteration_ms']
print(f'{r:.0f} {100*(r/$published-1):+.1f} {j[\"iteration_ms\"]:.1f}')")
  read -r got err ms <<< "$out"
  echo "$name: predicted $got/s (step $ms ms) vs published $published/s: $err%"
  check "$name within [$low, $high] x published" /usr/bin/python3 -c \
    "import sys; sys.exit(0 if $low * $published <= $got <= $high * $published else 1)"
}

R50=(--target ascend910 --batch 256 --train --precision-mode allow_mix_precision --optimizer momentum)
# Session 14 moved the whole model to the true dtypes (the calibration labels are one MindSpore
# TypeId early; the lowering emits MindSpore's O2 dtypes: fp16 maps, fp32 BN tensors, dW and
# optimizer). All three rows assert the +-15% aim itself. BERT-Large met it in session 15, when a
# matmul stopped splitting k over cores (no AtomicAddrClean precedes a matmul record; TBE's static
# schedule has no k split): until then it was a guard band [0.75, 1.35] at +18-19%.
rate resnet50_graph 2115 0.85 1.15 256 "$DIR/resnet50_train.onnx" "${R50[@]}" --mode graph
rate resnet50_eager 1680 0.85 1.15 256 "$DIR/resnet50_train.onnx" "${R50[@]}" --mode eager
rate bert_large_graph 269 0.85 1.15 96 "$DIR/bert_large.onnx" --target ascend910 --batch 96 \
  --shape masked_positions=1920 --train --precision-mode allow_mix_precision --optimizer lamb --mode graph

# BERT-base pretraining lowered at the shapes of the BERT-base records (128 sequences of 128,
# 2,560 masked positions: shared/calibration/ascend910/bert_seq128_bs32_train.csv), its kernel sum
# (no dispatch) against the records' measured sum and against the model's sum on the records
# (npugap perf --kernels). The aim is 1.0: the lowering emits the kernels the records show. It is
# not met (0.60 when this was written, docs/fidelity.md "The lowered BERT-base step against its
# records"): the lowered 16,384-row matmuls are costed as the cache tiling runs them, 12 ms against
# the records' 47 ms (the tiler question, lowermm). [0.55, 1.15] is a regression guard on what the
# model computes, not the aim: it fails when the lowered step loses kernels or time the records
# have, and leaves room for the matmul tiler.
CALIB=${NPUGAP_CALIBRATION_DIR:-$ROOT/../shared/calibration/ascend910}/bert_seq128_bs32_train.csv
if [ -f "$CALIB" ]; then
  "$NPUGAP" perf "$DIR/bert_base.onnx" --target ascend910 --batch 128 --shape masked_positions=2560 --train \
    --precision-mode allow_mix_precision --optimizer lamb --mode graph --json > "$DIR/bert_base_graph.json" \
    2> "$DIR/bert_base_graph.err"
  low_rc=$?
  "$NPUGAP" perf --kernels "$CALIB" --target ascend910 --json > "$DIR/bert_base_records.json" \
    2> "$DIR/bert_base_records.err"
  rec_rc=$?
  if [ $low_rc -ne 0 ] || [ $rec_rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "FAIL: bert_base: $(cat "$DIR/bert_base_graph.err" "$DIR/bert_base_records.err")"
  else
    check "bert_base lowered kernel sum within [0.55, 1.15] x the records' (measured and modelled)" \
      /usr/bin/python3 -c "
import json, sys
low = json.load(open('$DIR/bert_base_graph.json'))
rec = json.load(open('$DIR/bert_base_records.json'))
b = low['breakdown_ms']  # (each kernel's time_us in the JSON includes its host dispatch)
ks = b['cube'] + b['vector'] + b['transdata_cast'] + b['aicpu']
meas, model = rec['measured_us'] / 1e3, rec['predicted_us'] / 1e3
print(f'bert_base_graph: lowered kernels {ks:.1f} ms (step {low[\"iteration_ms\"]:.1f} ms) vs records measured '
      f'{meas:.1f} ms: x{ks / meas:.3f}; vs the model on the records {model:.1f} ms: x{ks / model:.3f}')
sys.exit(0 if all(0.55 <= ks / r <= 1.15 for r in (meas, model)) else 1)"
  fi
else
  echo "bert_base_graph: SKIPPED: $CALIB not found (the shared calibration data is not present)"
fi

echo "perf_e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
