#!/usr/bin/env bash
# End-to-end tests of `npugap run` under emulated Ascend numerics: --target, --precision-mode,
# --keep-dtype, --modify-mixlist, --overflow; every bad-input path exits 2 with one line naming
# the file or value; NaN / Inf inputs are reported, not fatal.
set -uo pipefail
NPUGAP=${1:?usage: precision_run_cli_test.sh NPUGAP_BINARY}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

# --- a model and inputs: y = x * 300 (x[3]), written by a tiny protobuf encoder -------------
tiny_onnx_models <<'PYEOF'

model(f"{out}/scale.onnx", [node("Mul", ["x", "k"], ["y"], "mul")], [value_info("x", FLOAT, [3])],
      [value_info("y", FLOAT, [3])], inits=[float_tensor("k", [300.0])])

write_npy(f"{out}/big.npy", [300.0, -300.0, 1.0])
write_npy(f"{out}/nan.npy", [float("nan"), float("inf"), 1.0])
PYEOF
check "model written" test -s "$TMP/scale.onnx"
M="$TMP/scale.onnx"

# --- plain FP32 and emulated runs ---------------------------------------------------------
"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --json > "$TMP/fp32.json"
check "fp32 run has no precision section" test "$(json_get "$TMP/fp32.json" "'precision' in j")" = False
check "fp32 max is 90000" test "$(json_get "$TMP/fp32.json" "j['outputs'][0]['max']")" = 90000.0

"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910 --precision-mode force_fp16 --json > "$TMP/sat.json"
check "910 saturates to 65504" test "$(json_get "$TMP/sat.json" "j['outputs'][0]['max']")" = 65504.0
check "910 overflow mode" test "$(json_get "$TMP/sat.json" "j['precision']['overflow']")" = saturation
check "910 counts saturated values" test "$(json_get "$TMP/sat.json" "j['precision']['rounding']['saturated']")" = 2
check "mode reported" test "$(json_get "$TMP/sat.json" "j['precision']['precision_mode']")" = force_fp16

"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode force_fp16 --json > "$TMP/inf.json"
check "910B overflows to inf" test "$(json_get "$TMP/inf.json" "j['outputs'][0]['non_finite']")" = 2
check "910B counts inf" test "$(json_get "$TMP/inf.json" "j['precision']['rounding']['inf_nan']")" = 2

"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode fp16 --overflow saturation \
  --no-fusion --json > "$TMP/over.json"
check "--overflow saturation on 910B" test "$(json_get "$TMP/over.json" "j['outputs'][0]['max']")" = 65504.0

"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 > "$TMP/text.out"
check "text names the framework default mode" grep -q "precision mode must_keep_origin_dtype" "$TMP/text.out"
check "text has rounding counts" grep -q "^rounding: " "$TMP/text.out"

# --keep-dtype: the Mul stays fp32 (90000 exact); a line naming nothing is a warning with its line.
printf 'mul\nnot_a_node\n' > "$TMP/keep.cfg"
"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode force_fp16 --keep-dtype "$TMP/keep.cfg" \
  --json > "$TMP/keep.json" 2> "$TMP/keep.err"
check "keep_dtype keeps fp32" test "$(json_get "$TMP/keep.json" "j['outputs'][0]['max']")" = 90000.0
check "keep_dtype warning names the line" grep -q "keep.cfg:2: 'not_a_node'" "$TMP/keep.err"

# --modify-mixlist: Mul to the black list keeps it fp32 in a mixed mode.
printf '{"black-list": {"to-add": ["Mul"]}}\n' > "$TMP/mix.json"
"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode mixed_float16 \
  --modify-mixlist "$TMP/mix.json" --json > "$TMP/mix.out"
check "mixlist black keeps fp32" test "$(json_get "$TMP/mix.out" "j['outputs'][0]['max']")" = 90000.0

# NaN / Inf inputs: reported, exit 0.
expect_rc "nan inputs run" 0 "$NPUGAP" run "$M" --inputs "$TMP/nan.npy" --target ascend910 --precision-mode force_fp16
check "nan inputs reported in text" grep -q "inputs: 2 NaN/Inf values" "$TMP/out"
"$NPUGAP" run "$M" --inputs "$TMP/nan.npy" --target ascend910b2 --precision-mode force_fp16 --json > "$TMP/nan.json"
check "nan inputs reported in json" test "$(json_get "$TMP/nan.json" "j['inputs_non_finite']")" = 2

# --op-select-implmode and --cube-accumulator-bits: reported; the accumulator model is off by default.
"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode force_fp16 --json > "$TMP/acc0.json"
check "accumulator off by default" test "$(json_get "$TMP/acc0.json" "j['precision']['cube_accumulator_bits']")" = None
check "implmode default high_performance" \
  test "$(json_get "$TMP/acc0.json" "j['precision']['op_select_implmode']")" = high_performance
"$NPUGAP" run "$M" --inputs "$TMP/big.npy" --target ascend910b2 --precision-mode force_fp16 \
  --cube-accumulator-bits 23 --op-select-implmode high_precision --json > "$TMP/acc23.json"
check "accumulator bits reported" test "$(json_get "$TMP/acc23.json" "j['precision']['cube_accumulator_bits']")" = 23
check "implmode reported" test "$(json_get "$TMP/acc23.json" "j['precision']['op_select_implmode']")" = high_precision

# --- bad input: one line, exit 2 ---------------------------------------------------------
expect_error "unknown mode lists the valid ones" "valid: force_fp32" \
  "$NPUGAP" run "$M" --target ascend910b2 --precision-mode fp17
check "unknown mode names it" grep -q "'fp17'" "$TMP/err"
check "unknown mode lists uniform" grep -q "uniform_bf16" "$TMP/err"
expect_error "unknown target" "nosuchchip" "$NPUGAP" run "$M" --target nosuchchip --precision-mode force_fp16
check "unknown target lists the valid ones" grep -q "ascend910b2" "$TMP/err"
expect_error "bad overflow" "expected ieee or saturation" "$NPUGAP" run "$M" --overflow sometimes
expect_error "accumulator bits 0" "--cube-accumulator-bits 0: expected 1 to 48" "$NPUGAP" run "$M" --cube-accumulator-bits 0
expect_error "accumulator bits 49" "--cube-accumulator-bits 49: expected 1 to 48" "$NPUGAP" run "$M" --cube-accumulator-bits 49
expect_error "bad implmode" "--op-select-implmode 'fastest': expected high_performance or high_precision" \
  "$NPUGAP" run "$M" --op-select-implmode fastest
expect_error "bf16 mode on the 910" "does not have" "$NPUGAP" run "$M" --target ascend910 --precision-mode mixed_bfloat16
expect_error "missing keep_dtype file" "nope.cfg" "$NPUGAP" run "$M" --keep-dtype "$TMP/nope.cfg"
printf '{\n  "black-list": {"to-add": ["Mul",]}\n}\n' > "$TMP/bad.json"
expect_error "mixlist parse error has line and column" "bad.json:2:" \
  "$NPUGAP" run "$M" --precision-mode mixed_float16 --modify-mixlist "$TMP/bad.json"
printf '{"grey-list": {}}\n' > "$TMP/badkey.json"
expect_error "mixlist unknown key" "grey-list" "$NPUGAP" run "$M" --precision-mode mixed_float16 --modify-mixlist "$TMP/badkey.json"

cli_test_end "precision_run_cli"
