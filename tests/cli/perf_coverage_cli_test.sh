#!/usr/bin/env bash
# `npugap perf --kernels` on synthetic records of every kernel type added for the other workloads
# of the calibration source (InceptionV3, ViT, YOLOv5, DeepFM MindSpore training steps; docs/perf.md
# "Kernel types and their rules"), and YOLOv5's 13 x 13 SPP max pooling, in the shapes those steps
# would emit: no type is unknown, none is left without a time. The records are made up here, not measured: the CSV format needs a
# time_us column, so the first run takes 1 us, and the second run takes each record's own
# prediction from the first (its summed error is then 0 by construction).
set -uo pipefail
NPUGAP=${1:?usage: perf_coverage_cli_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
cli_test_begin

S=ND:float32:  # a scalar (empty shape)
V=ND:float32:2359296  # a 3x3x512x512 weight, flattened
E=ND:float32:16000x80  # DeepFM's embedding table
cat > "$TMP/records.csv" <<CSV
op_type,block_dim,inputs,outputs,time_us
AvgPoolGrad,32,NC1HWC0:float16:32x16x35x35x16;NC1HWC0:float16:32x16x35x35x16;C1HWNCoC0:float16:16x3x3x1x16x16,NC1HWC0:float16:32x16x35x35x16,1
DepthwiseConv2dNative,32,NC1HWC0:float16:32x2x112x112x16;C1HWNCoC0:float16:2x3x3x1x16x16,NC1HWC0:float16:32x2x112x112x16,1
DepthwiseConv2dNativeBackpropInput,32,C1HWNCoC0:float16:2x3x3x1x16x16;NC1HWC0:float16:32x2x112x112x16,NC1HWC0:float16:32x2x112x112x16,1
DepthwiseConv2dNativeBackpropFilter,32,NC1HWC0:float16:32x2x112x112x16;NC1HWC0:float16:32x2x112x112x16,C1HWNCoC0:float32:2x3x3x1x16x16,1
Conv2DTranspose,32,NC1HWC0:float16:32x16x20x20x16;FracZ:float16:36x16x16x16,NC1HWC0:float16:32x16x40x40x16,1
ApplyRMSProp,32,$V;$V;$V;$S;$V,$V;$V;$V,1
ApplyRMSPropD,32,$V;$V;$V;$S;$V,$V;$V;$V,1
Adam,32,$E;$E;$E;$S;$S;$S;$S;$S;$S;$E,$E;$E;$E,1
ApplyFtrl,32,$E;$E;$E;$E;$S;$S;$S;$S,$E,1
ApplyFtrlD,32,$E;$E;$E;$E;$S;$S;$S;$S,$E;$E;$E,1
AdamApplyOne,32,$V;$V;$V;$V;$S;$S;$S;$S;$S;$S,$V;$V;$V,1
AdamApplyOneAssign,32,$V;$V;$V;$V;$S;$S;$S;$S;$S;$S,$V;$V;$V,1
AdamApplyOneWithDecay,32,$V;$V;$V;$V;$S;$S;$S;$S;$S;$S;$S,$V;$V;$V,1
AdamApplyOneWithDecayAssign,32,$V;$V;$V;$V;$S;$S;$S;$S;$S;$S;$S,$V;$V;$V,1
SigmoidCrossEntropyWithLogits,32,ND:float32:16000x1;ND:float32:16000x1,ND:float32:16000x1,1
SigmoidCrossEntropyWithLogitsGrad,32,ND:float32:16000x1;ND:float32:16000x1;ND:float32:16000x1,ND:float32:16000x1,1
ConfusionSoftmaxGrad,32,FRACTAL_NZ:float16:32x12x13x13x16x16;FRACTAL_NZ:float16:32x12x13x13x16x16,FRACTAL_NZ:float16:32x12x13x13x16x16,1
ConfusionMulGrad,32,ND:float16:32x197x768;ND:float16:32x197x768;ND:float16:32x197x768,ND:float16:32x197x768;ND:float16:768,1
LeakyRelu,32,NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
LeakyReluGrad,32,NC1HWC0:float16:32x4x160x160x16;NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
Mish,32,NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
MishGrad,32,NC1HWC0:float16:32x4x160x160x16;NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
Softplus,32,NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
SoftplusGrad,32,NC1HWC0:float16:32x4x160x160x16;NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
Swish,32,NC1HWC0:float16:32x4x160x160x16,NC1HWC0:float16:32x4x160x160x16,1
ReLU6,32,NC1HWC0:float16:32x2x112x112x16,NC1HWC0:float16:32x2x112x112x16,1
Relu6,32,NC1HWC0:float16:32x2x112x112x16,NC1HWC0:float16:32x2x112x112x16,1
ReLU6Grad,32,NC1HWC0:float16:32x2x112x112x16;NC1HWC0:float16:32x2x112x112x16,NC1HWC0:float16:32x2x112x112x16,1
Relu6Grad,32,NC1HWC0:float16:32x2x112x112x16;NC1HWC0:float16:32x2x112x112x16,NC1HWC0:float16:32x2x112x112x16,1
ClipByValue,32,NC1HWC0:float16:32x2x112x112x16;ND:float16:;ND:float16:,NC1HWC0:float16:32x2x112x112x16,1
MaxPoolWithArgmax,32,NC1HWC0:float16:32x16x20x20x16,NC1HWC0:float16:32x16x20x20x16;NC1HWC0:uint16:32x16x169x26x16,1
MaxPoolGradWithArgmax,32,NC1HWC0:float16:32x16x20x20x16;NC1HWC0:float16:32x16x20x20x16;NC1HWC0:uint16:32x16x169x26x16,NC1HWC0:float16:32x16x20x20x16,1
ResizeNearestNeighbor,32,NC1HWC0:float16:32x16x20x20x16,NC1HWC0:float16:32x16x40x40x16,1
ResizeNearestNeighborV2,32,NC1HWC0:float16:32x16x20x20x16,NC1HWC0:float16:32x16x40x40x16,1
ResizeNearestNeighborGrad,32,NC1HWC0:float32:32x16x40x40x16,NC1HWC0:float32:32x16x20x20x16,1
ResizeNearestNeighborV2Grad,32,NC1HWC0:float32:32x16x40x40x16,NC1HWC0:float32:32x16x20x20x16,1
CSV
types=$(tail -n +2 "$TMP/records.csv" | cut -d, -f1 | sort -u | wc -l)

"$NPUGAP" perf --kernels "$TMP/records.csv" --target ascend910 --json --out "$TMP/pred.csv" > "$TMP/run1.json"
check "first run: exit 0" test $? -eq 0
check "first run: no unknown kernel type" py -c "
import json,sys; j=json.load(open('$TMP/run1.json')); sys.exit(0 if j['unknown']==[] else 1)"
check "first run: all $types types costed" py -c "
import json,sys; j=json.load(open('$TMP/run1.json')); sys.exit(0 if len(j['op_types'])==$types else 1)"
check "first run: no record left at 0 us or with a note" py -c "
import csv,sys
rows=list(csv.DictReader(open('$TMP/pred.csv')))
sys.exit(0 if rows and all(float(r['predicted_us'])>0 for r in rows) else 1)"
check "first run: no notes" py -c "
import json,sys; j=json.load(open('$TMP/run1.json')); sys.exit(0 if not j.get('notes') else 1)"

# Second run: each record's time_us is its own prediction.
py -c "
import csv
rows=list(csv.DictReader(open('$TMP/pred.csv')))
with open('$TMP/records2.csv','w',newline='') as f:
    w=csv.writer(f); w.writerow(['op_type','block_dim','inputs','outputs','time_us'])
    for r in rows: w.writerow([r['op_type'],r['block_dim'],r['inputs'],r['outputs'],r['predicted_us']])"
"$NPUGAP" perf --kernels "$TMP/records2.csv" --target ascend910 --json > "$TMP/run2.json"
check "second run: exit 0" test $? -eq 0
check "second run: no unknown type, summed error 0" py -c "
import json,sys; j=json.load(open('$TMP/run2.json'))
sys.exit(0 if j['unknown']==[] and abs(j['sum_error_pct'])<0.01 else 1)"

cli_test_end "perf_coverage_cli_test"
