#!/usr/bin/env bash
# `npugap perf --kernels FILE --dtype-labels R`: the default, typeid-shifted, reads each label as the
# MindSpore TypeId one place later; as-written takes them as they stand (docs/perf.md, "Dtype labels"); --out writes
# the rows as read; each bad-input path exits 2 with one stderr line.
set -uo pipefail
NPUGAP=${1:?usage: perf_dtype_labels_cli_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# A memory-bound Add on 8 Mi elements labelled float32: read shifted, it is float16 and moves half
# the bytes, so its prediction drops; the LessEqual's number_type_begin output reads as bool.
cat > "$TMP/k.csv" <<CSV
op_type,block_dim,inputs,outputs,time_us
Add,30,ND:float32:8388608;ND:float32:8388608,ND:float32:8388608,80.0
LessEqual,1,ND:float16:;ND:float16:,ND:number_type_begin:,1.9
CSV
pred() { py -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['predicted_us'])" "$1"; }

"$NPUGAP" perf --kernels "$TMP/k.csv" --target ascend910 --dtype-labels as-written \
  --out "$TMP/written.csv" > "$TMP/w.txt"
check "as-written: exit 0" test $? -eq 0
check "as-written: the header line names no reading" bash -c "! grep -q 'dtype labels read' '$TMP/w.txt'"
"$NPUGAP" perf --kernels "$TMP/k.csv" --target ascend910 --out "$TMP/shifted.csv" > "$TMP/s.txt"
check "typeid-shifted (default): exit 0" test $? -eq 0
check "typeid-shifted: the header line says so" grep -q 'dtype labels read typeid-shifted' "$TMP/s.txt"
check "typeid-shifted: every record known (bool is a known dtype)" grep -q 'unknown    0 records' "$TMP/s.txt"
w=$(pred "$TMP/written.csv")
s=$(pred "$TMP/shifted.csv")
check "typeid-shifted: the float32-labelled Add is predicted faster ($w -> $s us)" \
  py -c "import sys; sys.exit(0 if float(sys.argv[2]) < 0.7 * float(sys.argv[1]) else 1)" "$w" "$s"
check "typeid-shifted: --out keeps the rows as read" \
  bash -c "cut -d, -f1-5 '$TMP/shifted.csv' | diff -q - <(cut -d, -f1-5 '$TMP/written.csv') > /dev/null"
"$NPUGAP" perf --kernels "$TMP/k.csv" --target ascend910 --json > "$TMP/s.json"
check "default --json: names the reading" json_true "$TMP/s.json" "j['dtype_labels'] == 'typeid-shifted'"
"$NPUGAP" perf --kernels "$TMP/k.csv" --target ascend910 --dtype-labels typeid-shifted --out "$TMP/again.csv" > /dev/null
check "--dtype-labels typeid-shifted equals the default" cmp -s "$TMP/again.csv" "$TMP/shifted.csv"

expect_error "unknown reading lists the valid ones" \
  "--dtype-labels 'swapped': not a reading; valid: as-written, typeid-shifted" \
  "$NPUGAP" perf --kernels "$TMP/k.csv" --target ascend910 --dtype-labels swapped
printf 'op_type,block_dim,inputs,outputs,time_us\nCast,1,ND:float16:4,ND:float64:4,1.5\n' > "$TMP/f64.csv"
expect_error "a label with no shifted reading names file, line, column and operand" \
  "f64.csv:2: column 'outputs': operand 'ND:float64:4': dtype label 'float64' has no typeid-shifted reading" \
  "$NPUGAP" perf --kernels "$TMP/f64.csv" --target ascend910
"$NPUGAP" perf --kernels "$TMP/f64.csv" --target ascend910 --dtype-labels typeid-shifted --out "$TMP/never.csv" \
  > /dev/null 2>&1
check "a bad label leaves no --out file" test ! -e "$TMP/never.csv"
expect_error "--dtype-labels with a MODEL" "perf --dtype-labels as-written: only with --kernels" \
  "$NPUGAP" perf "$TMP/model.onnx" --dtype-labels as-written

echo "perf_dtype_labels_cli_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
