#!/usr/bin/env bash
# scripts/perf_record_groups.py on predictions written by `npugap perf --kernels --out`: groups of
# identical records, the matmul view read from the NZ shapes (m x n x k and transposes), the split
# by the previous record, the per-type floor, and each bad-input path (exit 2, one stderr line).
set -uo pipefail
NPUGAP=${1:?usage: perf_record_groups_cli_test.sh NPUGAP_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT="$HERE/../../scripts/perf_record_groups.py"
# shellcheck source=common.sh
source "$HERE/common.sh"
cli_test_begin

# A (m x k = 128 x 64) is NZ [k1, m1] = [4, 8]; stored transposed it is [8, 4]. B (k x n = 64 x 32)
# is NZ [n1, k1] = [2, 4]; C (128 x 32) is [n1, m1] = [2, 8].
MM_N=MatMul,8,FRACTAL_NZ:float16:4x8x16x16\;FRACTAL_NZ:float16:2x4x16x16,FRACTAL_NZ:float16:2x8x16x16
MM_T=MatMul,8,FRACTAL_NZ:float16:8x4x16x16\;FRACTAL_NZ:float16:2x4x16x16,FRACTAL_NZ:float16:2x8x16x16
cat > "$TMP/kernels.csv" <<CSV
op_type,block_dim,inputs,outputs,time_us
Add,32,ND:float16:1024;ND:float16:1024,ND:float16:1024,2.0
$MM_N,10.0
Cast,1,ND:float16:16,ND:float32:16,1.5
$MM_N,20.0
$MM_T,30.0
CSV
"$NPUGAP" perf --kernels "$TMP/kernels.csv" --target ascend910 --out "$TMP/pred.csv" > /dev/null
check "npugap perf --out exit 0" test $? -eq 0

py "$SCRIPT" "$TMP/pred.csv" --type MatMul --floor > "$TMP/groups" 2> "$TMP/err"
check "groups: exit 0" test $? -eq 0
check "groups: nothing on stderr" test ! -s "$TMP/err"
check "groups: --type leaves Add out" bash -c "! grep -q ' Add ' '$TMP/groups'"
check "groups: the two identical records form one group of 2 (30 us)" \
  grep -qE '^ +30\.0 +2 +15\.0 +10\.0 +20\.0 .* MatMul bd=8 128x32x64 NN \|' "$TMP/groups"
check "groups: a transposed A is its own group" grep -qE '^ +30\.0 +1 .* MatMul bd=8 128x32x64 TN \|' "$TMP/groups"
# Best single value of {10, 20} under mean |p - t| / t is 10: errors 0 and 0.5; the TN group 0.
check "floor: 16.7% / 16.7% over 3 records" grep -qxF 'floor MatMul 3 16.7% / 16.7%' "$TMP/groups"

py "$SCRIPT" "$TMP/pred.csv" --type MatMul --by-previous > "$TMP/prev" 2> "$TMP/err"
check "by-previous: exit 0" test $? -eq 0
check "by-previous: the pair splits by what ran before" \
  bash -c "grep -q '\[after Add\] 128x32x64 NN' '$TMP/prev' && grep -q '\[after Cast\] 128x32x64 NN' '$TMP/prev'"

expect_error "missing file" "perf_record_groups: $TMP/none.csv: No such file or directory" py "$SCRIPT" "$TMP/none.csv"
expect_error "no predicted_us column" "missing column 'predicted_us'" py "$SCRIPT" "$TMP/kernels.csv"
head -2 "$TMP/pred.csv" | sed '2s/,[^,]*$/,fast/' > "$TMP/bad.csv"
expect_error "a prediction that is not a number" "bad.csv:2: predicted_us 'fast' is not a number" \
  py "$SCRIPT" "$TMP/bad.csv"
printf 'op_type,block_dim,inputs,outputs,time_us,predicted_us\n' > "$TMP/empty.csv"
expect_error "no records" "empty.csv: no records" py "$SCRIPT" "$TMP/empty.csv"

# A kernel type the cost model does not know gets an empty predicted_us in --out, and a record
# may be measured at 0 us: both are legitimate --out content, left out of the groups and the
# floor with a count, never a crash or a division by zero.
cat > "$TMP/odd.csv" <<CSV
op_type,block_dim,inputs,outputs,time_us
$MM_N,10.0
NoSuchKernelType,1,ND:float16:16,ND:float16:16,1.5
$MM_N,0
CSV
"$NPUGAP" perf --kernels "$TMP/odd.csv" --target ascend910 --out "$TMP/odd_pred.csv" > /dev/null
check "odd: the unknown type's prediction is empty" grep -q '^NoSuchKernelType,.*,1.5,$' "$TMP/odd_pred.csv"
py "$SCRIPT" "$TMP/odd_pred.csv" --floor > "$TMP/odd" 2> "$TMP/err"
check "odd: exit 0, nothing on stderr" bash -c "[ -s '$TMP/odd' ] && [ ! -s '$TMP/err' ]"
check "odd: the unknown type is counted, not grouped" \
  bash -c "grep -qxF 'no prediction (unknown kernel type), left out: NoSuchKernelType (1)' '$TMP/odd' && ! grep -q ' NoSuchKernelType bd=' '$TMP/odd'"
check "odd: the floor leaves the 0 us record out" \
  bash -c "grep -qxF 'floor MatMul 1 0.0% / 0.0%' '$TMP/odd' && grep -qxF 'floor: 1 records measured at 0 us left out' '$TMP/odd'"
printf 'op_type,block_dim,inputs,outputs,time_us,predicted_us\nAdd,1,ND:float16:16,ND:float16:16,0,1.0\n' > "$TMP/zero.csv"
py "$SCRIPT" "$TMP/zero.csv" > "$TMP/zero" 2> "$TMP/err"
check "zero: a group measured at 0 us prints no ratio" grep -qE '^ +0\.0 +1 .* +- Add bd=1' "$TMP/zero"

# scripts/compare_kernels.py reads the same CSVs with the same rules (scripts/kernel_records.py).
COMPARE="$HERE/../../scripts/compare_kernels.py"
py "$COMPARE" "$TMP/odd.csv" "$TMP/odd_pred.csv" > "$TMP/cmp" 2> "$TMP/err"
check "compare: an empty prediction counts as 0" \
  bash -c "grep -qE '^NoSuchKernelType +1 +1 +0\.00 +0\.00 +0\.00\$' '$TMP/cmp' && [ ! -s '$TMP/err' ]"
expect_error "compare: missing file" "compare_kernels: $TMP/none.csv: No such file or directory" \
  py "$COMPARE" "$TMP/none.csv" "$TMP/odd_pred.csv"
expect_error "compare: records without predictions" "kernels.csv: missing column 'predicted_us'" \
  py "$COMPARE" "$TMP/kernels.csv" "$TMP/kernels.csv"
sed '2s/,10.0$/,slow/' "$TMP/odd.csv" > "$TMP/bad_low.csv"
expect_error "compare: a lowered time that is not a number" "bad_low.csv:2: time_us 'slow' is not a number" \
  py "$COMPARE" "$TMP/bad_low.csv" "$TMP/odd_pred.csv"
expect_error "compare: no records" "empty.csv: no records" py "$COMPARE" "$TMP/empty.csv" "$TMP/odd_pred.csv"

cli_test_end "perf_record_groups_cli_test"
