#!/usr/bin/env bash
# scripts/compare_kernels.py: a lowered inventory beside records predicted by `npugap perf
# --kernels --out`, with the records' dtype labels read as written or typeid-shifted
# (--dtype-labels), the per-type format:dtype signatures (--dtypes), and the bad-input paths
# (exit 2, one stderr line).
set -uo pipefail
NPUGAP=${1:?usage: compare_kernels_cli_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT="$HERE/../../scripts/compare_kernels.py"
# shellcheck source=common.sh
source "$HERE/common.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# Records as the calibration files write them: "float32" labels that are float16, a uint32 mask
# that is uint8. The lowered side is npugap's own labels.
cat > "$TMP/records.csv" <<'CSV'
op_type,block_dim,inputs,outputs,time_us
ReluGradV2,32,NC1HWC0:float32:2x4x8x8x16;ND:uint32:2x4x8x8x2,NC1HWC0:float32:2x4x8x8x16,3.0
Cast,1,ND:float16:16,ND:float32:16,1.5
CSV
cat > "$TMP/lowered.csv" <<'CSV'
op_type,block_dim,inputs,outputs,time_us
ReluGradV2,32,NC1HWC0:float16:2x4x8x8x16;ND:uint8:2x4x8x8x2,NC1HWC0:float16:2x4x8x8x16,2.0
Cast,1,ND:float32:16,ND:float16:16,1.0
CSV
"$NPUGAP" perf --kernels "$TMP/records.csv" --target ascend910 --dtype-labels typeid-shifted \
  --out "$TMP/pred.csv" > /dev/null
check "npugap perf --out exit 0" test $? -eq 0

py "$SCRIPT" "$TMP/lowered.csv" "$TMP/pred.csv" --dtypes --dtype-labels typeid-shifted > "$TMP/shifted" 2> "$TMP/err"
check "shifted: exit 0, nothing on stderr" bash -c "[ -s '$TMP/shifted' ] && [ ! -s '$TMP/err' ]"
check "shifted: the mask kernel's signatures agree (1 and 1)" grep -qE \
  '^ReluGradV2 +1 +1  NC1HWC0:float16;ND:uint8 -> NC1HWC0:float16$' "$TMP/shifted"
check "shifted: the Cast reads float32 -> float16 on both sides" grep -qE \
  '^Cast +1 +1  ND:float32 -> ND:float16$' "$TMP/shifted"
py "$SCRIPT" "$TMP/lowered.csv" "$TMP/pred.csv" --dtypes > "$TMP/written"
check "as written (default): the labels differ, one count on each side" bash -c \
  "grep -qE '^ReluGradV2 +0 +1  NC1HWC0:float32;ND:uint32 -> NC1HWC0:float32\$' '$TMP/written' &&
   grep -qE '^ReluGradV2 +1 +0  NC1HWC0:float16;ND:uint8 -> NC1HWC0:float16\$' '$TMP/written'"
py "$SCRIPT" "$TMP/lowered.csv" "$TMP/pred.csv" --detail ReluGradV2 --dtype-labels typeid-shifted > "$TMP/detail"
check "--detail lists the records' operands shifted, shapes kept" grep -qF \
  'NC1HWC0:float16:2x4x8x8x16;ND:uint8:2x4x8x8x2 -> NC1HWC0:float16:2x4x8x8x16' "$TMP/detail"
py "$SCRIPT" "$TMP/lowered.csv" "$TMP/pred.csv" --dtypes --markdown --dtype-labels typeid-shifted > "$TMP/md"
check "--dtypes --markdown: a table row per signature" grep -qF \
  '| Cast | ND:float32 -> ND:float16 | 1 | 1 |' "$TMP/md"

printf 'op_type,block_dim,inputs,outputs,time_us,predicted_us\nAdd,1,ND:float64:16,ND:float16:16,1.0,1.0\n' \
  > "$TMP/f64.csv"
expect_error "a label with no shifted reading" \
  "f64.csv:2: column 'inputs': operand 'ND:float64:16': dtype label 'float64' has no typeid-shifted reading" \
  py "$SCRIPT" "$TMP/lowered.csv" "$TMP/f64.csv" --dtype-labels typeid-shifted
py "$SCRIPT" "$TMP/lowered.csv" "$TMP/pred.csv" --dtype-labels swapped > /dev/null 2> "$TMP/err"
check "an unknown reading: exit 2" test $? -eq 2
check "an unknown reading: stderr names it" grep -qF "invalid choice: 'swapped'" "$TMP/err"

echo "compare_kernels_cli_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
