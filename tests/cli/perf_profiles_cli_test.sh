#!/usr/bin/env bash
# `npugap perf --kernels FILE` on each format it reads (docs/kernel-profiles.md): msprof op_summary,
# torch_npu kernel_details (two CANN ages) and the calibration CSV, told apart by the header; the
# records, merged launches and skipped rows in the text and JSON reports; the dtype reading each
# format needs, and --dtype-labels over it; --out in the calibration format, read back; and every
# bad-input path of a profiler file (exit 2, one stderr line naming file, line and column, no --out).
set -uo pipefail
NPUGAP=${1:?usage: perf_profiles_cli_test.sh NPUGAP_BINARY PROFILES_DIR}
PROFILES=${2:?usage: perf_profiles_cli_test.sh NPUGAP_BINARY PROFILES_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
cli_test_begin

perf() { "$NPUGAP" perf --target ascend910 --kernels "$@"; }

perf "$PROFILES/op_summary_0.csv" --out "$TMP/op.csv" > "$TMP/op.txt" 2> "$TMP/err"
check "op_summary: exit 0" test $? -eq 0
check "op_summary: nothing on stderr" test ! -s "$TMP/err"
check "op_summary: format, rows, records, merged launches" grep -qF \
  "op_summary_0.csv (msprof op_summary: 8 rows, 6 records, 1 repeated launches merged) on ascend910" "$TMP/op.txt"
check "op_summary: true dtypes, no reading named" bash -c "! grep -q 'dtype labels read' '$TMP/op.txt'"
check "op_summary: the communication row counted" grep -qxF \
  "skipped    1 rows that are no AI Core / AI CPU kernel: COMMUNICATION (1)" "$TMP/op.txt"
check "op_summary: --out in the calibration format" \
  test "$(head -1 "$TMP/op.csv")" = "op_type,block_dim,inputs,outputs,time_us,launches,name,predicted_us"
check "op_summary: --out one row per record" test "$(wc -l < "$TMP/op.csv")" -eq 7
check "op_summary: --out the mean of the launches" grep -qF \
  "Conv2D,32,NC1HWC0:float16:32x1x224x224x16;FracZ:float16:49x4x16x16,NC1HWC0:float16:32x4x112x112x16,367.2,2,Conv2D_1," \
  "$TMP/op.csv"
check "op_summary: the conv, matmuls, TransData and Cast are predicted" py -c "
import csv,sys
rows={r['op_type']: r for r in csv.DictReader(open(sys.argv[1]))}
sys.exit(0 if all(float(rows[t]['predicted_us']) > 0 for t in ('Conv2D','MatMulV2','TransData','Cast')) else 1)" "$TMP/op.csv"

# The --out file is a calibration CSV with true dtypes: read back as written, the same predictions.
perf "$TMP/op.csv" --dtype-labels as-written --out "$TMP/again.csv" > "$TMP/again.txt"
check "--out read back: exit 0" test $? -eq 0
check "--out read back: the same predictions" py -c "
import csv,sys
a=[r['predicted_us'] for r in csv.DictReader(open(sys.argv[1]))]
b=[r['predicted_us'] for r in csv.DictReader(open(sys.argv[2]))]
sys.exit(0 if a == b else 1)" "$TMP/op.csv" "$TMP/again.csv"

perf "$PROFILES/op_summary_0.csv" --json > "$TMP/op.json"
check "op_summary --json: exit 0" test $? -eq 0
check "op_summary --json: format and counts" json_true "$TMP/op.json" \
  "j['format'] == 'msprof op_summary' and j['rows'] == 8 and j['records'] == 6 and j['merged_launches'] == 1"
check "op_summary --json: skipped rows by reason" json_true "$TMP/op.json" \
  "j['skipped'] == [{'reason': 'COMMUNICATION', 'rows': 1}]"
check "op_summary --json: read as written" json_true "$TMP/op.json" "j['dtype_labels'] == 'as-written'"

perf "$PROFILES/kernel_details.csv" > "$TMP/kd.txt" 2> "$TMP/err"
check "kernel_details: exit 0" test $? -eq 0
check "kernel_details: format, rows, records, merged launches" grep -qF \
  "kernel_details.csv (torch_npu kernel_details: 7 rows, 4 records, 2 repeated launches merged)" "$TMP/kd.txt"
check "kernel_details: the HCCL row counted" grep -qF "kernel: HCCL (1)" "$TMP/kd.txt"
perf "$PROFILES/kernel_details_cann7.csv" --json > "$TMP/k7.json"
check "kernel_details of CANN 7: exit 0" test $? -eq 0
check "kernel_details of CANN 7: FORMAT_ND read, three records, Cast and Slice costed" json_true "$TMP/k7.json" \
  "j['format'] == 'torch_npu kernel_details' and j['records'] == 3 and [e['op_type'] for e in j['op_types']] == ['Cast', 'Slice']"

perf "$PROFILES/calibration.csv" --json > "$TMP/cal.json"
check "calibration CSV: exit 0" test $? -eq 0
check "calibration CSV: read typeid-shifted by default" json_true "$TMP/cal.json" \
  "j['format'] == 'calibration CSV' and j['dtype_labels'] == 'typeid-shifted' and j['skipped'] == []"
perf "$PROFILES/kernel_details_cann7.csv" --dtype-labels as-written --json > "$TMP/k7w.json"
check "--dtype-labels as-written on a profile equals its default" \
  json_true "$TMP/k7w.json" "j['dtype_labels'] == 'as-written' and j['records'] == 3"
expect_error "--dtype-labels typeid-shifted on a profile: GE's bfloat16 has no shifted reading" \
  "op_summary_0.csv:5: column 'inputs': operand 'ND:bfloat16:2048x1024': dtype label 'bfloat16' has no typeid-shifted reading" \
  perf "$PROFILES/op_summary_0.csv" --dtype-labels typeid-shifted

# --- bad input: one msprof header, one bad row after a good one -----------------------------
HEADER=$(head -1 "$PROFILES/op_summary_0.csv")
GOOD=$(sed -n 4p "$PROFILES/op_summary_0.csv")  # the Cast row
bad() {  # bad NAME TEXT ROW: the file gets the header and the good row; --out must not appear
  printf '%s\n%s\n%s\n' "$HEADER" "$GOOD" "$3" > "$TMP/op_summary_bad.csv"
  rm -f "$TMP/bad_out.csv"
  expect_error "$1" "$2" perf "$TMP/op_summary_bad.csv" --out "$TMP/bad_out.csv"
  check "$1: no --out file" test ! -e "$TMP/bad_out.csv"
}
row() {  # row BLOCK DURATION IN_SHAPES IN_TYPES IN_FORMATS: a Cast row with those cells
  printf '0,4294967295,12,2,Cast_2,Cast,static,AI_CORE,1.0,%s,0,%s,NO,%s,%s,%s,"""4,8""",FLOAT16,ND' "$2" "$1" "$3" "$4" "$5"
}
bad "block dim not an integer" "op_summary_bad.csv:3: column 'Block Num' (12): 'x' is not a non-negative integer" \
  "$(row x 3.5 '"""4,8"""' FLOAT ND)"
bad "duration not a number" "op_summary_bad.csv:3: column 'Task Duration(us)' (10): 'fast' is not a number" \
  "$(row 8 fast '"""4,8"""' FLOAT ND)"
bad "negative duration" "op_summary_bad.csv:3: column 'Task Duration(us)' (10): negative time -2" \
  "$(row 8 -2 '"""4,8"""' FLOAT ND)"
bad "unknown format" "op_summary_bad.csv:3: column 'Input Formats' (16): tensor 1 'NCWH': unknown format 'NCWH'" \
  "$(row 8 3.5 '"""4,8"""' FLOAT NCWH)"
bad "unknown data type" "op_summary_bad.csv:3: column 'Input Data Types' (15): tensor 1 'HALF': unknown data type 'HALF'" \
  "$(row 8 3.5 '"""4,8"""' HALF ND)"
bad "unparseable dim" "op_summary_bad.csv:3: column 'Input Shapes' (14): tensor 1 '4,y': unparseable dim 'y' in shape" \
  "$(row 8 3.5 '"""4,y"""' FLOAT ND)"
bad "tensor counts differ" "op_summary_bad.csv:3: column 'Input Data Types' (15): 2 tensors, but column 'Input Shapes' (14) has 1" \
  "$(row 8 3.5 '"""4,8"""' 'FLOAT;FLOAT' ND)"
bad "unterminated quote" "op_summary_bad.csv:3: column 19: unterminated quoted field" \
  "0,4294967295,12,2,Cast_2,Cast,static,AI_CORE,1.0,3.5,0,8,NO,\"\"\"4,8\"\"\",FLOAT,ND,\"\"\"4,8\"\"\",FLOAT16,\"ND"
bad "missing field" "op_summary_bad.csv:3: column 'Block Num' (12): missing (the row has 10 fields, the header 19)" \
  "0,4294967295,12,2,Cast_2,Cast,static,AI_CORE,1.0,3.5"
printf '%s\n' "Op Name,OP Type,Task Type,Task Duration(us),Input Shapes" > "$TMP/op_summary_nocol.csv"
expect_error "missing column" \
  "op_summary_nocol.csv:1: missing column 'Block Dim' (or 'Block Num') in the msprof op_summary header" \
  perf "$TMP/op_summary_nocol.csv"
grep -E 'COMMUNICATION|^Device' "$PROFILES/op_summary_0.csv" > "$TMP/op_summary_comm.csv"
expect_error "no kernel row" "op_summary_comm.csv: no AI Core / AI CPU kernel among its 1 rows: skipped 1 COMMUNICATION" \
  perf "$TMP/op_summary_comm.csv"

cli_test_end "perf_profiles_cli_test"
