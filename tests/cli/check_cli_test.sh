#!/usr/bin/env bash
# End-to-end tests of `npugap check`: exit codes 0 / 1 / 2, JSON keys, one-line errors on bad
# input, and --write-static round trip (the static model runs and gives the same outputs).
# The models are written here by a tiny protobuf encoder (no Python onnx package needed).
set -uo pipefail
NPUGAP=${1:?usage: check_cli_test.sh NPUGAP_BINARY}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

# --- models -----------------------------------------------------------------
tiny_onnx_models <<'PYEOF'

relu = [node("Relu", ["x"], ["y"], "relu")]
model(f"{out}/static.onnx", relu, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT, [2, 3])])
model(f"{out}/f64.onnx", relu, [value_info("x", DOUBLE, [2, 3])], [value_info("y", DOUBLE, [2, 3])])
model(f"{out}/opset8.onnx", relu, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT, [2, 3])], opsets=(("", 8),))
model(f"{out}/custom.onnx", [node("Fancy", ["x"], ["y"], "fancy", domain="my.ops")], [value_info("x", FLOAT, [2, 3])],
      [value_info("y", FLOAT, [2, 3])], opsets=(("", 13), ("my.ops", 1)))
# x[N,3,4] -> Relu -> Reshape(r, Concat(Gather(Shape(r), 0), [12])): the torch.flatten pattern.
model(f"{out}/flatten.onnx", [
    node("Relu", ["x"], ["r"], "relu"),
    node("Shape", ["r"], ["s"], "shape"),
    node("Gather", ["s", "zero"], ["n"], "gather"),
    node("Concat", ["n", "twelve"], ["target"], "concat", ld(5, attr_int("axis", 0))),
    node("Reshape", ["r", "target"], ["y"], "reshape"),
], [value_info("x", FLOAT, ["N", 3, 4])], [value_info("y", FLOAT, ["N", 12])],
    inits=[int64_tensor("zero", [0]), int64_tensor("twelve", [12])])
# y = Loop(3 times) { x = Fancy(Relu(x)) }: the body's nodes need verdicts of their own.
body = b"".join(ld(1, n) for n in [
    node("Relu", ["x_in"], ["r"], "relu"),
    node("Fancy", ["r"], ["x_out"], "fancy", domain="my.ops"),
    node("Identity", ["c_in"], ["c_out"], "keep"),
]) + ld(2, "body")
body += b"".join(ld(11, v) for v in [value_info("i", INT64, []), value_info("c_in", BOOL, []),
                                     value_info("x_in", FLOAT, [2, 3])])
body += b"".join(ld(12, v) for v in [value_info("c_out", BOOL, []), value_info("x_out", FLOAT, [2, 3])])
body += ld(13, value_info("r", FLOAT, [2, 3]))
model(f"{out}/loop.onnx", [node("Loop", ["trip", "cond", "x"], ["y"], "loop", ld(5, attr_graph("body", body)))],
      [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT, [2, 3])],
      inits=[vint(2, INT64) + vint(7, 3) + ld(8, "trip"), vint(2, BOOL) + vint(5, 1) + ld(8, "cond")],
      opsets=(("", 13), ("my.ops", 1)))
PYEOF
check "models written" test -s "$TMP/flatten.onnx"

# --- exit codes and JSON ------------------------------------------------------
expect_rc "static relu is clean: exit 0" 0 "$NPUGAP" check "$TMP/static.onnx" --target ascend910b2
"$NPUGAP" check "$TMP/static.onnx" --json > "$TMP/static.json"
check "json keys" py -c "
import json; d=json.load(open('$TMP/static.json'))
assert all(k in d for k in ('nodes', 'dynamic', 'summary', 'deployable')), d.keys()
assert all(k in d['nodes'][0] for k in ('name', 'op_type', 'verdict', 'reason')), d['nodes'][0]
assert d['summary'] == {'aicore': 1, 'aicpu': 0, 'unsupported': 0, 'unknown': 0, 'in_subgraphs': 0}, d['summary']
assert d['deployable'] is True and d['dynamic'] == []
"
expect_rc "float64: exit 1" 1 "$NPUGAP" check "$TMP/f64.onnx" --json
check "float64 relu on AI CPU, still deployable" test "$(json_get "$TMP/out" "j['nodes'][0]['verdict'], j['deployable']")" = "aicpu True"
expect_rc "custom domain: exit 1" 1 "$NPUGAP" check "$TMP/custom.onnx" --json
check "custom domain unsupported, E19010" test "$(json_get "$TMP/out" "j['nodes'][0]['verdict'], j['nodes'][0]['error'], j['deployable']")" = "unsupported E19010 False"
expect_rc "custom domain with a plugin: exit 0" 0 "$NPUGAP" check "$TMP/custom.onnx" --plugin-domain my.ops

# --- custom-op plugins declared in the profile (compiler.custom_ops) -----------------
profile_with() {  # profile_with OUT PYTHON-STATEMENT (p is the 910B2 profile)
  "$NPUGAP" targets show ascend910b2 --json | py -c "
import json, sys; p = json.load(sys.stdin)['profile']; p['name'] = 'b2-plugins'; $2
json.dump(p, open('$1', 'w'))"
}
profile_with "$TMP/plugin.json" "p['compiler']['custom_ops'] = [{'domain': 'my.ops', 'op_types': ['Fancy'], 'engine': 'aicpu'}]"
expect_rc "profile plugin on AI CPU: exit 1" 1 "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/plugin.json" --json
check "profile plugin: aicpu, deployable" test "$(json_get "$TMP/out" "j['nodes'][0]['verdict'], j['deployable'], 'compiler.custom_ops[0]' in j['nodes'][0]['reason']")" = "aicpu True True"
expect_rc "--plugin-domain overrides the profile: exit 0" 0 "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/plugin.json" --plugin-domain my.ops
profile_with "$TMP/plugin_other.json" "p['compiler']['custom_ops'] = [{'domain': 'my.ops', 'op_types': ['Other'], 'engine': 'aicore'}]"
expect_rc "plugin without the op type: exit 1" 1 "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/plugin_other.json" --json
check "plugin without the op type: E19010, names what it has" test "$(json_get "$TMP/out" "j['nodes'][0]['error'], 'it has: Other' in j['nodes'][0]['reason']")" = "E19010 True"
"$NPUGAP" targets show "$TMP/plugin.json" > "$TMP/show.txt"
check "targets show lists the plugin" grep -qF "custom-op plugin: domain 'my.ops' (Fancy) on aicpu" "$TMP/show.txt"
profile_with "$TMP/bad_engine.json" "p['compiler']['custom_ops'] = [{'domain': 'my.ops', 'op_types': ['Fancy'], 'engine': 'gpu'}]"
expect_error "plugin engine unknown" "field 'compiler.custom_ops[0].engine': 'gpu' is not one of aicore, aicpu" \
  "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/bad_engine.json"
profile_with "$TMP/bad_types.json" "p['compiler']['custom_ops'] = [{'domain': 'my.ops', 'op_types': []}]"
expect_error "plugin without op types" "field 'compiler.custom_ops[0].op_types': expected a non-empty array" \
  "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/bad_types.json"
profile_with "$TMP/bad_domain.json" "p['compiler']['custom_ops'] = [{'domain': 'ai.onnx', 'op_types': ['Relu'], 'engine': 'aicore'}]"
expect_error "--plugin-domain of the standard domain" "--plugin-domain 'ai.onnx': the standard ONNX domain" \
  "$NPUGAP" check "$TMP/custom.onnx" --plugin-domain ai.onnx
expect_error "plugin in the standard domain" "field 'compiler.custom_ops[0].domain': 'ai.onnx' is the standard ONNX domain" \
  "$NPUGAP" check "$TMP/custom.onnx" --target "$TMP/bad_domain.json"

# --- nodes inside Loop / If / Scan bodies ----------------------------------------
expect_rc "loop: exit 1" 1 "$NPUGAP" check "$TMP/loop.onnx" --json
check "loop body nodes named by their path" py -c "
import json; d=json.load(open('$TMP/out'))
by = {n['name']: n for n in d['nodes']}
assert [n['name'] for n in d['nodes']] == ['loop', 'loop/body/relu', 'loop/body/fancy', 'loop/body/keep'], list(by)
assert by['loop/body/relu']['verdict'] == 'aicore' and by['loop/body/relu']['scope'] == 'loop/body', by
assert (by['loop/body/fancy']['verdict'], by['loop/body/fancy']['error']) == ('unsupported', 'E19010'), by
assert d['summary']['in_subgraphs'] == 3 and d['summary']['unsupported'] == 1, d['summary']
assert d['deployable'] is False
"
"$NPUGAP" check "$TMP/loop.onnx" > "$TMP/loop.txt"
check "text names the body node" grep -q "unsupported E19010 *loop/body/fancy (my.ops::Fancy)" "$TMP/loop.txt"
check "text counts the body nodes" grep -q "(3 inside If / Loop / Scan bodies)" "$TMP/loop.txt"
expect_rc "loop with the plugin: the body op on AI Core" 1 "$NPUGAP" check "$TMP/loop.onnx" --plugin-domain my.ops --json
check "loop with the plugin: only the Loop itself blocks" test "$(json_get "$TMP/out" "j['summary']['unsupported'], [f['kind'] for f in j['dynamic']]")" = "0 ['control_flow']"
expect_rc "opset 8: exit 1" 1 "$NPUGAP" check "$TMP/opset8.onnx" --json
check "opset 8 is E19010" test "$(json_get "$TMP/out" "j['nodes'][0]['error'], bool(j['opset_error'])")" = "E19010 True"
expect_rc "symbolic batch: exit 1" 1 "$NPUGAP" check "$TMP/flatten.onnx" --json
check "symbolic batch blocks, with gears as a fix" py -c "
import json; d=json.load(open('$TMP/out'))
kinds = {f['kind']: f for f in d['dynamic']}
assert d['deployable'] is False
assert '--dynamic_batch_size' in kinds['symbolic_input']['fix'], kinds
assert kinds['shape_subgraph']['blocking'] and kinds['shape_subgraph']['nodes'] == ['shape', 'gather', 'concat'], kinds
"
# Bound, the Shape -> Gather -> Concat chain folds at import as ATC folds it: nothing left to report.
expect_rc "bound batch: the chain folds, exit 0" 0 "$NPUGAP" check "$TMP/flatten.onnx" --batch 2 --json
check "bound batch is deployable, 3 nodes folded" test "$(json_get "$TMP/out" "j['deployable'], j['dynamic'], j['folded_nodes'], [n['op_type'] for n in j['nodes']]")" = "True [] 3 ['Relu', 'Reshape']"
"$NPUGAP" check "$TMP/flatten.onnx" --target ascend310p3 > "$TMP/text.txt"
check "text report names the target and the fix" grep -q "Ascend310P3.*--dynamic_batch_size\|--dynamic_batch_size" "$TMP/text.txt"

# --- --write-static round trip ------------------------------------------------
"$NPUGAP" check "$TMP/flatten.onnx" --batch 2 --target ascend910b2 --write-static "$TMP/flat_static.onnx" > "$TMP/ws.txt"
check "write-static writes the model" test -s "$TMP/flat_static.onnx"
check "write-static prints the ATC command" grep -qF "atc --model=$TMP/flat_static.onnx --framework=5 --output=flat_static --input_shape=\"x:2,3,4\" --soc_version=Ascend910B2 --precision_mode_v2=fp16" "$TMP/ws.txt"
check "no temporary file left" test "$(ls "$TMP" | grep -c 'flat_static.onnx.')" -eq 0
expect_rc "static model is clean: exit 0" 0 "$NPUGAP" check "$TMP/flat_static.onnx" --json
check "static model has no Shape node" test "$(json_get "$TMP/out" "[n['op_type'] for n in j['nodes']]")" = "['Relu', 'Reshape']"
expect_rc "original runs" 0 "$NPUGAP" run "$TMP/flatten.onnx" --batch 2 --seed 7 --save-outputs "$TMP/orig_out"
expect_rc "static model runs" 0 "$NPUGAP" run "$TMP/flat_static.onnx" --seed 7 --save-outputs "$TMP/static_out"
# Relu and Reshape are exact, so the saved outputs must be identical byte for byte.
check "static model gives the same outputs" cmp -s "$TMP/orig_out/y.npy" "$TMP/static_out/y.npy"

# --- bad input: exit 2, one line naming the value ---------------------------------
expect_error "missing model" "nope.onnx" "$NPUGAP" check "$TMP/nope.onnx"
expect_error "batch 0" "--batch 0" "$NPUGAP" check "$TMP/flatten.onnx" --batch 0
expect_error "negative batch" "--batch -3" "$NPUGAP" check "$TMP/flatten.onnx" --batch -3
expect_error "bad shape" "'3xQ'" "$NPUGAP" check "$TMP/flatten.onnx" --shape x=3xQ
expect_error "unknown target" "ascend911" "$NPUGAP" check "$TMP/static.onnx" --target ascend911
expect_error "target without ATC" "cpu-dev" "$NPUGAP" check "$TMP/static.onnx" --target cpu-dev
expect_error "unknown precision mode" "--precision-mode-v2" "$NPUGAP" check "$TMP/static.onnx" --precision-mode-v2 fp8
expect_error "write-static needs bound inputs" "input 'x'" "$NPUGAP" check "$TMP/flatten.onnx" --write-static "$TMP/never.onnx"
check "nothing written on error" test ! -e "$TMP/never.onnx"
expect_error "write-static into a missing folder" "$TMP/no/dir/s.onnx" "$NPUGAP" check "$TMP/flatten.onnx" --batch 2 --write-static "$TMP/no/dir/s.onnx"
"$NPUGAP" targets show ascend910b2 --json | py -c "
import json, sys; p = json.load(sys.stdin)['profile']; del p['compiler']['soc_version']
json.dump(p, open('$TMP/broken.json', 'w'))"
expect_error "profile missing a field" "soc_version" "$NPUGAP" check "$TMP/static.onnx" --target "$TMP/broken.json"
"$NPUGAP" targets show ascend910b2 --json | py -c "
import json, sys; p = json.load(sys.stdin)['profile']; p['buffers']['ub']['value'] = 0
json.dump(p, open('$TMP/zero.json', 'w'))"
expect_error "profile with a zero size" "buffers.ub" "$NPUGAP" check "$TMP/static.onnx" --target "$TMP/zero.json"
"$NPUGAP" targets show ascend910b2 --json | py -c "
import json, sys; p = json.load(sys.stdin)['profile']; p['colour'] = 'blue'
json.dump(p, open('$TMP/extra.json', 'w'))"
"$NPUGAP" check "$TMP/static.onnx" --target "$TMP/extra.json" > "$TMP/out" 2> "$TMP/err"
check "unknown profile key: a warning, the check still runs" test $? -eq 0 -a "$(grep -c 'warning.*colour' "$TMP/err")" -eq 1
printf 'not a model' > "$TMP/garbage.onnx"
expect_error "not a model" "garbage.onnx" "$NPUGAP" check "$TMP/garbage.onnx"

cli_test_end "check_cli"
