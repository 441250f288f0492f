#!/usr/bin/env bash
# The training lowering names only kernel types the cost model has a rule for: each model is
# lowered with `npugap perf MODEL --train --kernels-out` (MindSpore-style training on ascend910,
# momentum, adam and adamw), and `npugap perf --kernels --dtype-labels as-written` (the lowering
# writes true dtypes) on that CSV must report 0 unknown types and the
# kernel types MindSpore's Ascend backend emits for the model's distinctive ops (docs/perf.md,
# "Lowering check"). Models: a YOLO-style block, a DeepFM-style model, an Inception-style block and
# a depthwise / transposed-conv / average-pool block generated here (scripts/gen_lowering_check_models.py), and
# the torchvision mobilenet_v2 / vit_b_16 exports from models/ when they have been generated.
set -uo pipefail
NPUGAP=${1:?usage: perf_lowering_check_cli_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
MODELS=${NPUGAP_MODELS:-$HERE/../../models}
# shellcheck source=common.sh
source "$HERE/common.sh"
cli_test_begin

py "$HERE/../../scripts/gen_lowering_check_models.py" "$TMP" > /dev/null 2> "$TMP/gen.err"
check "lowering-check models generated" test -s "$TMP/yolo_block.onnx" -a -s "$TMP/deepfm.onnx" \
  -a -s "$TMP/mobile_block.onnx" -a -s "$TMP/inception_block.onnx"

# lower NAME MODEL OPTIMIZER: writes $TMP/NAME.csv and $TMP/NAME.json (the --kernels prediction).
lower() {
  "$NPUGAP" perf "$2" --target ascend910 --train --batch 4 --optimizer "$3" --kernels-out "$TMP/$1.csv" \
    > /dev/null 2> "$TMP/$1.err" &&
    "$NPUGAP" perf --target ascend910 --kernels "$TMP/$1.csv" --dtype-labels as-written --json \
      > "$TMP/$1.json" 2>> "$TMP/$1.err"
}
has_type() { grep -q "^$2," "$TMP/$1.csv"; }  # (no pipe: grep -q would cut it short under pipefail)
lacks_type() { ! has_type "$1" "$2"; }

run_model() {  # run_model NAME MODEL TYPES...: 0 unknown, and each listed type in the lowering
  local name=$1 model=$2
  shift 2
  for opt in momentum adam adamw; do
    check "$name ($opt) lowers" lower "$name.$opt" "$model" "$opt"
    check "$name ($opt): 0 unknown kernel types" json_true "$TMP/$name.$opt.json" "len(j['unknown']) == 0"
  done
  for t in "$@"; do check "$name emits $t" has_type "$name.momentum" "$t"; done
  check "$name adam emits Adam, not ApplyAdamD" has_type "$name.adam" Adam
  check "$name adamw emits AdamApplyOneWithDecayAssign" has_type "$name.adamw" AdamApplyOneWithDecayAssign
}

run_model yolo_block "$TMP/yolo_block.onnx" ResizeNearestNeighborV2 ResizeNearestNeighborV2Grad \
  MaxPoolGradWithArgmax SigmoidCrossEntropyWithLogits SigmoidCrossEntropyWithLogitsGrad FusionOp_Mul_Maximum
check "yolo_block: LeakyReLU is MindSpore's Maximum(alpha * x, x)" lacks_type yolo_block.momentum LeakyRelu
check "yolo_block: no bilinear resize" lacks_type yolo_block.momentum ResizeBilinearV2
check "yolo_block: no softmax loss on a detection map" lacks_type yolo_block.momentum SoftmaxCrossEntropyWithLogits
run_model deepfm "$TMP/deepfm.onnx" SigmoidCrossEntropyWithLogitsGrad UnsortedSegmentSum Tile
for t in MulGrad ReduceSumGrad SubGrad; do check "deepfm: no $t" lacks_type deepfm.momentum "$t"; done
run_model mobile_block "$TMP/mobile_block.onnx" DepthwiseConv2dNative DepthwiseConv2dNativeBackpropInput \
  DepthwiseConv2dNativeBackpropFilter AvgPoolGrad Slice Conv2DBackpropFilter
for t in Conv2DTransposeGrad PadDGrad RealDivGrad; do check "mobile_block: no $t" lacks_type mobile_block.momentum "$t"; done
check "mobile_block: AvgPoolGrad reads a C1HWNCoC0 kernel_matrix" \
  grep -q '^AvgPoolGrad,.*C1HWNCoC0' "$TMP/mobile_block.momentum.csv"

run_model inception_block "$TMP/inception_block.onnx" AvgPoolGrad MaxPoolGradWithArgmax DropoutDoMask \
  FusionOp_BNTrainingUpdate_ReLUV2 SplitVD
check "inception_block: the dropout bit mask (uint8) is read forward and backward" \
  test "$(grep -c '^DropoutDoMask,[^,]*,[^,]*ND:uint8' "$TMP/inception_block.momentum.csv")" -eq 2

for m in mobilenet_v2_op13 vit_b_16_op13; do
  if [ -f "$MODELS/$m.onnx" ]; then
    run_model "$m" "$MODELS/$m.onnx"
  else
    echo "SKIP: $MODELS/$m.onnx not generated (scripts/gen_models.py)"
  fi
done

cli_test_end "perf_lowering_check_cli"
