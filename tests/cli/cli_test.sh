#!/usr/bin/env bash
# End-to-end tests of the npugap CLI: the main job on SimpleNet, JSON keys, --expect, and every
# bad-input path (one-line error naming the file / value, exit code 2, no partial output).
set -uo pipefail
NPUGAP=${1:?usage: cli_test.sh NPUGAP_BINARY}
DATA=/usr/share/libonnx-testdata/data

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

json_has() {  # json_has FILE KEY...
  local file=$1
  shift
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$file')); sys.exit(0 if all(k in d for k in sys.argv[1:]) else 1)" "$@"
}

# --- main job: SimpleNet ---------------------------------------------------
"$NPUGAP" example simplenet -o "$TMP/simplenet.onnx" --batch 2 > /dev/null
check "example writes simplenet" test -s "$TMP/simplenet.onnx"
"$NPUGAP" info "$TMP/simplenet.onnx" --json > "$TMP/info.json"
check "info exit 0" test $? -eq 0
check "info json keys" json_has "$TMP/info.json" inputs outputs op_counts params flops opset
check "simplenet flops" /usr/bin/python3 -c "
import json; d=json.load(open('$TMP/info.json'))
conv = 2 * 2*64*222*222 * 3*3*3
gemm = 2 * 2*10 * 64*222*222
assert d['flops']['by_op_type']['Conv'] == conv, d['flops']
assert d['flops']['by_op_type']['Gemm'] == gemm, d['flops']
assert d['params']['count'] == 64*3*9 + 64 + 4*64 + 10*64*222*222 + 10
"
"$NPUGAP" run "$TMP/simplenet.onnx" --json --repeat 2 --threads 2 --save-outputs "$TMP/outs" > "$TMP/run.json"
check "run exit 0" test $? -eq 0
check "run json keys" json_has "$TMP/run.json" outputs elapsed_ms
check "run saved logits" test -s "$TMP/outs/logits.npy"
check "saved output matches the summary" /usr/bin/python3 -c "
import json, numpy as np; d=json.load(open('$TMP/run.json')); a=np.load('$TMP/outs/logits.npy')
assert a.shape == (2, 10); assert abs(a.mean() - d['outputs'][0]['mean']) < 1e-5
"
# A symbolic batch (as torch.onnx.export with dynamic_axes writes it), bound at run time.
"$NPUGAP" example simplenet -o "$TMP/dyn.onnx" --dynamic-batch > /dev/null
"$NPUGAP" info "$TMP/dyn.onnx" --json > "$TMP/dyn_info.json"
check "dynamic-batch input dim is symbolic" /usr/bin/python3 -c "
import json; d=json.load(open('$TMP/dyn_info.json')); s=json.dumps(d['inputs'][0])
assert 'batch' in s, s
"
"$NPUGAP" run "$TMP/dyn.onnx" --batch 3 --json --threads 1 > "$TMP/dyn_run.json"
check "dynamic-batch model runs at --batch 3" /usr/bin/python3 -c "
import json; d=json.load(open('$TMP/dyn_run.json')); assert d['outputs'][0]['shape'] == [3, 10], d['outputs'][0]
"
expect_error "--dynamic-batch with --batch" "excludes" "$NPUGAP" example simplenet -o "$TMP/y.onnx" --dynamic-batch --batch 4
# Same seed, same outputs; batch-free model run twice gives identical numbers.
"$NPUGAP" run "$TMP/simplenet.onnx" --json --threads 1 > "$TMP/run1.json"
check "threads do not change results" /usr/bin/python3 -c "
import json; a=json.load(open('$TMP/run.json'))['outputs'][0]; b=json.load(open('$TMP/run1.json'))['outputs'][0]
assert abs(a['mean']-b['mean']) < 1e-4 * max(1, abs(a['mean'])), (a, b)
"
# --profile lists the executed op types; --no-fusion runs the graph as written, same numbers.
"$NPUGAP" run "$TMP/simplenet.onnx" --json --threads 1 --repeat 2 --profile > "$TMP/prof.json"
"$NPUGAP" run "$TMP/simplenet.onnx" --json --threads 1 --repeat 2 --profile --no-fusion > "$TMP/prof_nf.json"
check "profile: fused run folds BN and Relu into FusedConv, unfused run shows each node" /usr/bin/python3 -c "
import json; f=json.load(open('$TMP/prof.json')); n=json.load(open('$TMP/prof_nf.json'))
fo = {p['op_type']: p['count'] for p in f['profile']}; no = {p['op_type']: p['count'] for p in n['profile']}
assert fo.get('FusedConv') == 1 and 'Relu' not in fo and 'BatchNormalization' not in fo, fo
assert no.get('Conv') == 1 and no.get('BatchNormalization') == 1 and no.get('Relu') == 1 and 'FusedConv' not in no, no
a = f['outputs'][0]; b = n['outputs'][0]
assert abs(a['mean'] - b['mean']) < 1e-4 * max(1, abs(a['mean'])), (a, b)
"

# --- --expect against ONNX backend data -------------------------------------
"$NPUGAP" run "$DATA/node/test_relu/model.onnx" --inputs "$DATA/node/test_relu/test_data_set_0" \
  --expect "$DATA/node/test_relu/test_data_set_0" --json > "$TMP/expect.json"
check "expect match exits 0" test $? -eq 0
check "expect json has match" json_has "$TMP/expect.json" match
"$NPUGAP" run "$DATA/node/test_abs/model.onnx" --inputs "$DATA/node/test_abs/test_data_set_0" \
  --expect "$DATA/node/test_neg/test_data_set_0" > /dev/null
check "expect mismatch exits 1" test $? -eq 1
"$NPUGAP" run "$DATA/node/test_add/model.onnx" --inputs "$DATA/node/test_add/test_data_set_0/input_0.pb" \
  "$DATA/node/test_add/test_data_set_0/input_1.pb" > /dev/null
check "pb file inputs" test $? -eq 0

# --- bad input --------------------------------------------------------------
expect_error "missing model" "nope.onnx: no such file" "$NPUGAP" info "$TMP/nope.onnx"
printf 'garbage' > "$TMP/garbage.onnx"
expect_error "non-protobuf" "garbage.onnx: not a valid ONNX model" "$NPUGAP" info "$TMP/garbage.onnx"
head -c 100000 "$TMP/simplenet.onnx" > "$TMP/truncated.onnx"
expect_error "truncated" "truncated.onnx" "$NPUGAP" info "$TMP/truncated.onnx"
expect_error "--shape names no input" "--shape names no input 'bogus'" \
  "$NPUGAP" info "$TMP/simplenet.onnx" --shape bogus=1x3
expect_error "bad --shape text" "not a dimension" "$NPUGAP" info "$TMP/simplenet.onnx" --shape input=1xax3
expect_error "unknown subcommand" "error" "$NPUGAP" frobnicate
expect_error "example batch" "--batch 0" "$NPUGAP" example simplenet -o "$TMP/x.onnx" --batch 0
check "no file from a failed example" test ! -e "$TMP/x.onnx"
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/wrong.npy', np.zeros((1,3,10,10), np.float32))"
expect_error "input of wrong shape" "input 'input': expected float32[2x3x224x224]" \
  "$NPUGAP" run "$TMP/simplenet.onnx" --inputs "$TMP/wrong.npy" --save-outputs "$TMP/partial"
check "no output folder after a failed run" test ! -e "$TMP/partial"
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/wrong_dtype.npy', np.zeros((2,3,224,224), np.int64))"
expect_error "input of wrong dtype" "got int64" "$NPUGAP" run "$TMP/simplenet.onnx" --inputs "$TMP/wrong_dtype.npy"
expect_error "missing input file" "missing.npy" "$NPUGAP" run "$TMP/simplenet.onnx" --inputs "$TMP/missing.npy"
/usr/bin/python3 - "$TMP" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
tmp = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
# custom domain op
g = helper.make_graph([helper.make_node("Mystery", ["x"], ["y"], name="mystery", domain="com.acme")], "g", [x], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.acme", 1)])
onnx.save(m, f"{tmp}/custom.onnx")
# cycle
g = helper.make_graph([helper.make_node("Relu", ["b"], ["a"], name="r1"), helper.make_node("Relu", ["a"], ["b"], name="r2"),
                       helper.make_node("Relu", ["a"], ["y"], name="r3")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{tmp}/cycle.onnx")
# missing initializer
g = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{tmp}/noinit.onnx")
# opset out of range
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 42)]), f"{tmp}/opset42.onnx")
# huge dims
big = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**40, 2**40])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [big], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{tmp}/huge.onnx")
# external data escaping the folder
w = helper.make_tensor("w", TensorProto.FLOAT, [4], [0, 0, 0, 0])
w.ClearField("float_data"); w.data_location = TensorProto.EXTERNAL
e = w.external_data.add(); e.key = "location"; e.value = "../../../etc/passwd"
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g", [x], [y], initializer=[w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{tmp}/escape.onnx")
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{tmp}/relu_sym.onnx")
PY
expect_error "unknown domain" "op 'Mystery' of domain 'com.acme' is not supported" \
  "$NPUGAP" run "$TMP/custom.onnx" --batch 1
expect_error "cycle" "cycle" "$NPUGAP" info "$TMP/cycle.onnx"
expect_error "missing initializer" "input 'bias' is not produced" "$NPUGAP" info "$TMP/noinit.onnx"
expect_error "opset range" "opset 42" "$NPUGAP" info "$TMP/opset42.onnx"
expect_error "overflowing dims" "overflows" "$NPUGAP" info "$TMP/huge.onnx"
expect_error "external data escape" "escape" "$NPUGAP" info "$TMP/escape.onnx"
expect_error "random input needs static dims" "dim 'batch' is symbolic" "$NPUGAP" run "$TMP/relu_sym.onnx"
"$NPUGAP" run "$TMP/relu_sym.onnx" --batch 3 --json > "$TMP/sym.json"
check "--batch binds the symbolic dim" /usr/bin/python3 -c "
import json; assert json.load(open('$TMP/sym.json'))['outputs'][0]['shape'] == [3, 4]"
expect_error "batch must be positive" "--batch -1" "$NPUGAP" run "$TMP/relu_sym.onnx" --batch -1

cli_test_end "cli"
