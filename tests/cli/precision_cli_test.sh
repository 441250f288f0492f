#!/usr/bin/env bash
# End-to-end tests of `npugap precision`: JSON keys and their relations, msprobe's CSV layout, the
# first failing node of a model built to overflow FP16, --suggest-keep finding exactly the nodes
# that overflow and its files verified by a re-run, saturation on the 310P, and every bad-input path
# (exit 2, one line on stderr naming the value). Models are written here with Python's onnx.
set -uo pipefail
NPUGAP=${1:?usage: precision_cli_test.sh NPUGAP_BINARY}
NPUGAP=$(cd "$(dirname "$NPUGAP")" && pwd)/$(basename "$NPUGAP")
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"
cli_test_begin

# small.onnx: Conv -> BatchNormalization -> Relu -> GlobalAveragePool -> Flatten -> Gemm: [2, 10] scores.
# overflow.onnx: m1 = x*300, m2 = m1*300 (beyond FP16's 65504), m3 = m2/300, m4 = m3/300, then Gemm.
/usr/bin/python3 - "$TMP" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(0)
def init(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)
small = helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
     helper.make_node("BatchNormalization", ["c", "g", "be", "mu", "var"], ["bn"], name="bn"),
     helper.make_node("Relu", ["bn"], ["r"], name="relu"),
     helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
     helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
     helper.make_node("Gemm", ["f", "fw", "fb"], ["scores"], name="fc", transB=1)],
    "small",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 10])],
    [init("w", rng.normal(0, 0.3, (4, 3, 3, 3))), init("b", rng.normal(0, 0.1, 4)), init("g", [1, 0.5, 2, 1]),
     init("be", [0, 0.1, -0.1, 0.2]), init("mu", [0.1, 0, -0.2, 0]), init("var", [1, 2, 0.5, 1]),
     init("fw", rng.normal(0, 1, (10, 4))), init("fb", rng.normal(0, 0.1, 10))])
onnx.save(helper.make_model(small, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/small.onnx")
over = helper.make_graph(
    [helper.make_node("Mul", ["x", "k"], ["m1"], name="m1"),
     helper.make_node("Mul", ["m1", "k"], ["m2"], name="m2"),
     helper.make_node("Mul", ["m2", "kinv"], ["m3"], name="m3"),
     helper.make_node("Mul", ["m3", "kinv"], ["m4"], name="m4"),
     helper.make_node("Gemm", ["m4", "fw", "fb"], ["scores"], name="fc", transB=1)],
    "overflow",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [4, 10])],
    [init("k", [300]), init("kinv", [1 / 300]), init("fw", rng.normal(0, 1, (10, 16))), init("fb", np.zeros(10))])
onnx.save(helper.make_model(over, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/overflow.onnx")
x = rng.normal(0, 1, (2, 3, 8, 8)).astype(np.float32)
np.save(f"{out}/x.npy", x)
x[0, 0, 0, 0] = np.nan
x[1, 2, 3, 4] = np.inf
np.save(f"{out}/x_nan.npy", x)
np.save(f"{out}/labels.npy", np.array([3, 7], dtype=np.int64))
np.save(f"{out}/labels3.npy", np.array([3, 7, 1], dtype=np.int64))
np.save(f"{out}/labels_float.npy", np.array([3, 7], dtype=np.float32))
PY
check "models generated" test -s "$TMP/small.onnx" -a -s "$TMP/overflow.onnx"
SMALL=$TMP/small.onnx
OVER=$TMP/overflow.onnx

# --- JSON of a passing run -----------------------------------------------------------------------
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --samples 6 --json \
  --csv "$TMP/small.csv" > "$TMP/small.json" 2> "$TMP/small.err"
rc=$?
check "small force_fp16: exit 0" test $rc -eq 0
check "small: nothing on stderr" test ! -s "$TMP/small.err"
for k in tensors first_failing outputs top1_agreement top5_overlap accuracy samples outputs_pass; do
  check "json key $k" json_true "$TMP/small.json" "'$k' in j"
done
check "every tensor entry has the documented keys" json_true "$TMP/small.json" \
  "all(set(['name','node','op_type','cosine','max_abs_err','max_rel_err','rmse','ratio_rel_lt_1e-3','ratio_rel_lt_5e-3','overflow_count','pass']) <= set(t) for t in j['tensors'])"
check "six node outputs in topological order" json_true "$TMP/small.json" \
  "[t['node'] for t in j['tensors']] == ['conv','bn','relu','pool','flatten','fc']"
check "6 samples at batch 2: 3 batches" json_true "$TMP/small.json" "j['samples'] == 6 and j['batches'] == 3"
check "fp16 error is small but not zero" json_true "$TMP/small.json" \
  "all(0.999 < t['cosine'] <= 1 and t['max_abs_err'] < 0.05 for t in j['tensors']) and j['tensors'][0]['max_abs_err'] > 0"
check "elements over three samples" json_true "$TMP/small.json" "j['tensors'][0]['elements'] == 3 * 2 * 4 * 8 * 8"
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --samples 5 --json > "$TMP/five.json"
check "5 samples at batch 2: whole batches, 6 compared" json_true "$TMP/five.json" \
  "j['samples'] == 6 and j['batches'] == 3 and j['tensors'][0]['elements'] == 3 * 2 * 4 * 8 * 8"
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --samples 5 > "$TMP/five.txt"
check "text names samples and batches" grep -q "samples 6 (3 batches of 2)" "$TMP/five.txt"
check "output is the Gemm" json_true "$TMP/small.json" "j['outputs'][0]['node'] == 'fc' and j['first_failing'] is None"
check "class scores: 6 rows" json_true "$TMP/small.json" \
  "j['classification'][0]['rows'] == 6 and 0 <= j['top1_agreement'] <= 1 and j['accuracy'] is None"
check "csv: msprobe's header" bash -c "head -1 '$TMP/small.csv' | grep -q '^NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,Cosine,MaxAbsErr,MaxRelativeErr,One Thousandth Err Ratio,Five Thousandths Err Ratio,NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,Accuracy Reached or Not,Err_message'"
check "csv: one row per tensor" test "$(wc -l < "$TMP/small.csv")" -eq 7
check "csv: rows say Yes" test "$(grep -c ',Yes,' "$TMP/small.csv")" -eq 6
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 > "$TMP/small.txt"
check "text report names the verdict" grep -q "verdict: every output passes" "$TMP/small.txt"
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --reference fp64 --json > "$TMP/fp64.json"
check "fp64 reference runs" json_true "$TMP/fp64.json" "j['reference'] == 'fp64' and len(j['tensors']) == 6"

# --- labels, NaN inputs ---------------------------------------------------------------------------
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --inputs "$TMP/x.npy" \
  --labels "$TMP/labels.npy" --json > "$TMP/labels.json"
check "labels: accuracy of both" json_true "$TMP/labels.json" \
  "j['accuracy']['reference'] in (0, 0.5, 1) and j['accuracy']['target'] in (0, 0.5, 1)"
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --inputs "$TMP/x_nan.npy" --json \
  > "$TMP/nan.json" 2> "$TMP/nan.err"
rc=$?
check "NaN/INF inputs: no crash (exit 0 or 1)" test $rc -le 1
check "NaN/INF inputs reported" json_true "$TMP/nan.json" \
  "j['non_finite_inputs'] == [{'input': 'x', 'sample': 0, 'nan': 1, 'inf': 1}]"

# --- a model that overflows FP16 ------------------------------------------------------------------
"$NPUGAP" precision "$OVER" --target ascend910b2 --precision-mode force_fp16 --json > "$TMP/over.json"
check "overflow: exit 1" test $? -eq 1
check "overflow: first failing is m2" json_true "$TMP/over.json" \
  "j['first_failing']['node'] == 'm2' and j['first_failing']['overflow_count'] > 0"
check "overflow: the output fails" json_true "$TMP/over.json" "j['outputs_pass'] is False"
"$NPUGAP" precision "$OVER" --target ascend310p3 --precision-mode force_fp16 --json > "$TMP/sat.json"
check "310P: saturated, not INF" json_true "$TMP/sat.json" \
  "[t for t in j['tensors'] if t['node'] == 'm2'][0]['saturated'] > 0 and [t for t in j['tensors'] if t['node'] == 'm2'][0]['non_finite'] == 0"

"$NPUGAP" precision "$OVER" --target ascend910b2 --precision-mode force_fp16 --suggest-keep --json \
  --write-keep-dtype "$TMP/keep.txt" --write-mixlist "$TMP/mix.json" > "$TMP/keep.json"
check "suggest-keep: exit 0" test $? -eq 0
check "suggest-keep: exactly the overflowing pair" json_true "$TMP/keep.json" \
  "j['suggest_keep']['nodes'] == ['m2', 'm3'] and j['suggest_keep']['achieved'] is True"
check "suggest-keep: cost reported" json_true "$TMP/keep.json" \
  "j['suggest_keep']['node_count'] == 2 and j['suggest_keep']['fp32_flops'] == 2 * 4 * 16 and j['suggest_keep']['runs'] >= 2"
check "keep_dtype file" test "$(cat "$TMP/keep.txt")" = "$(printf 'm2\nm3')"
check "mixlist JSON" json_true "$TMP/mix.json" "j == {'black-list': {'to-add': ['Mul']}}"
"$NPUGAP" precision "$OVER" --target ascend910b2 --precision-mode force_fp16 --keep-dtype "$TMP/keep.txt" --json > "$TMP/kept.json"
check "re-run with the written keep_dtype passes" test $? -eq 0
check "re-run: outputs pass" json_true "$TMP/kept.json" "j['outputs_pass'] is True"
check "force_fp16: the mixlist is not re-run (no effect outside mixed modes)" json_true "$TMP/keep.json" \
  "j['suggest_keep']['mixlist_verified']['applies'] is False"
# Mixed mode with Mul moved to the white list: the written mixlist (Mul to the black list) is
# re-run in place of the user's and must pass on its own.
printf '{"white-list": {"to-add": ["Mul"]}}\n' > "$TMP/white_mul.json"
"$NPUGAP" precision "$OVER" --target ascend910b2 --precision-mode mixed_float16 --modify-mixlist "$TMP/white_mul.json" \
  --suggest-keep --json --write-mixlist "$TMP/mix2.json" > "$TMP/keep2.json"
check "mixed: suggest-keep exit 0" test $? -eq 0
check "mixed: the written mixlist is verified by its own run" json_true "$TMP/keep2.json" \
  "j['suggest_keep']['mixlist_verified']['applies'] is True and j['suggest_keep']['mixlist_verified']['achieved'] is True and all(o['pass'] for o in j['suggest_keep']['mixlist_verified']['outputs'])"
"$NPUGAP" precision "$OVER" --target ascend910b2 --precision-mode mixed_float16 --suggest-keep \
  --modify-mixlist "$TMP/white_mul.json" > "$TMP/keep2.txt"
check "mixed: text names the mixlist run" grep -q "the mixlist reaches the goal on its own run" "$TMP/keep2.txt"
check "re-run with the written mixlist passes" "$NPUGAP" precision "$OVER" --target ascend910b2 \
  --precision-mode mixed_float16 --modify-mixlist "$TMP/mix2.json"

# --- bad input --------------------------------------------------------------------------------------
expect_error "unknown target lists the valid ones" "ascend910b2" "$NPUGAP" precision "$SMALL" --target nosuchnpu --precision-mode force_fp16
expect_error "unknown mode lists the valid ones" "unknown --precision-mode 'fp17' (valid: " "$NPUGAP" precision "$SMALL" --precision-mode fp17
expect_error "valid modes include force_fp16" "force_fp16" "$NPUGAP" precision "$SMALL" --precision-mode fp17
expect_error "missing model" "nosuch.onnx" "$NPUGAP" precision "$TMP/nosuch.onnx" --precision-mode force_fp16
expect_error "bad thresholds key" "unknown key 'rtol'" "$NPUGAP" precision "$SMALL" --thresholds rtol=1
expect_error "bad thresholds value" "'x' is not a number" "$NPUGAP" precision "$SMALL" --thresholds cos=x
expect_error "--reference fp16" "--reference" "$NPUGAP" precision "$SMALL" --reference fp16
expect_error "--cube-accumulator-bits 0" "--cube-accumulator-bits 0: expected 1 to 48" "$NPUGAP" precision "$SMALL" --cube-accumulator-bits 0
expect_error "--op-select-implmode bad" "--op-select-implmode 'x'" "$NPUGAP" precision "$SMALL" --op-select-implmode x
expect_error "--samples 0" "--samples" "$NPUGAP" precision "$SMALL" --samples 0
expect_error "--samples with --inputs" "--samples applies to random inputs" "$NPUGAP" precision "$SMALL" --inputs "$TMP/x.npy" --samples 2
expect_error "--labels without --inputs" "--labels needs the --inputs" "$NPUGAP" precision "$SMALL" --labels "$TMP/labels.npy"
expect_error "labels of the wrong length" "3 labels, but output 'scores' has 2 rows" "$NPUGAP" precision "$SMALL" --inputs "$TMP/x.npy" --labels "$TMP/labels3.npy"
expect_error "labels not int64" "expected int64 labels" "$NPUGAP" precision "$SMALL" --inputs "$TMP/x.npy" --labels "$TMP/labels_float.npy"
expect_error "--goal-cosine 2" "--goal-cosine 2" "$NPUGAP" precision "$SMALL" --suggest-keep --goal-cosine 2
expect_error "--write-keep-dtype without --suggest-keep" "need --suggest-keep" "$NPUGAP" precision "$SMALL" --write-keep-dtype "$TMP/k.txt"
expect_error "--csv into a missing folder" "does not exist" "$NPUGAP" precision "$SMALL" --csv "$TMP/no/dir/x.csv"
expect_error "--keep-dtype missing file" "no such file" "$NPUGAP" precision "$SMALL" --keep-dtype "$TMP/nosuch.txt"
printf '{"black-list": {"to-add": ["Mul"]\n  "white-list": {}}\n' > "$TMP/bad_mix.json"
expect_error "mixlist that does not parse: line and column" "bad_mix.json:2:" "$NPUGAP" precision "$SMALL" --precision-mode allow_mix_precision --modify-mixlist "$TMP/bad_mix.json"
check "no csv written by a failed run" test ! -e "$TMP/no"
printf 'conv\nno_such_node\nOpType::Relu\n' > "$TMP/keep_bad.txt"
"$NPUGAP" precision "$SMALL" --target ascend910b2 --precision-mode force_fp16 --keep-dtype "$TMP/keep_bad.txt" > /dev/null 2> "$TMP/warn.err"
rc=$?
check "keep_dtype line naming nothing: a warning, not an error" test $rc -le 1
check "the warning names the line" grep -q "keep_bad.txt:2.*no_such_node" "$TMP/warn.err"

cli_test_end "precision_cli"
