#!/usr/bin/env bash
# End-to-end tests of `npugap perf MODEL`: JSON keys and the relations between them (the
# breakdown sums to the iteration, graph vs eager, training vs inference, --compare-with,
# --trace as Chrome-trace JSON, the data-parallel all-reduce), and every bad-input path (exit 2,
# exactly one line on stderr naming the value, no output file left behind).
# Models: the seed's SimpleNet (generated here) and a small residual CNN built with torch here.
set -uo pipefail
NPUGAP=${1:?usage: perf_model_cli_test.sh NPUGAP_BINARY}
NPUGAP=$(cd "$(dirname "$NPUGAP")" && pwd)/$(basename "$NPUGAP")
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"
cli_test_begin

"$NPUGAP" example simplenet -o "$TMP/simplenet.onnx" --batch 8 > /dev/null
NET=$TMP/simplenet.onnx
check "simplenet generated" test -s "$NET"

# A residual CNN with BatchNorm kept (training-mode export), dynamic batch.
/usr/bin/python3 - "$TMP/resnet_tiny.onnx" <<'EOF' 2> "$TMP/gen.err"
import sys, torch, torch.nn as nn
class Block(nn.Module):
    def __init__(s, c):
        super().__init__(); s.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False); s.b1 = nn.BatchNorm2d(c)
        s.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False); s.b2 = nn.BatchNorm2d(c)
    def forward(s, x): return torch.relu(s.b2(s.c2(torch.relu(s.b1(s.c1(x))))) + x)
m = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), Block(32), Block(32),
                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).train()
torch.onnx.export(m, (torch.randn(2, 3, 32, 32),), sys.argv[1], opset_version=13, input_names=["x"],
                  output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
EOF
RES=$TMP/resnet_tiny.onnx
check "residual CNN exported" test -s "$RES"

# --- graph-mode inference JSON ---------------------------------------------------------------------
"$NPUGAP" perf "$NET" --target ascend910 --json > "$TMP/g.json" 2> "$TMP/g.err"
check "perf --json exit 0" test $? -eq 0
check "perf --json: nothing on stderr" test ! -s "$TMP/g.err"
for k in iteration_ms breakdown_ms kernels lowering samples_per_s; do
  check "json key $k" json_true "$TMP/g.json" "'$k' in j"
done
for k in cube vector transdata_cast aicpu dispatch h2d communication; do
  check "breakdown has $k" json_true "$TMP/g.json" "'$k' in j['breakdown_ms']"
done
check "breakdown sums to the iteration" json_true "$TMP/g.json" \
  "abs(sum(j['breakdown_ms'].values()) - j['iteration_ms']) < 1e-6 * max(1, j['iteration_ms'])"
check "kernel records {name, op_type, time_us, bound}" json_true "$TMP/g.json" \
  "len(j['kernels']) > 0 and all(set(['name','op_type','time_us','bound']) <= set(k) for k in j['kernels'])"
check "conv fused with BN and ReLU" json_true "$TMP/g.json" \
  "any(k['op_type'] == 'FusionOp_Conv2D_Relu' for k in j['kernels'])"
check "input converted to NC1HWC0" json_true "$TMP/g.json" "j['lowering']['transdata'] >= 1"
check "graph mode: dispatch = per-kernel launch only" json_true "$TMP/g.json" \
  "j['breakdown_ms']['dispatch'] > 0 and j['host_dispatch_ms'] == 0"

# --- eager vs graph; training -----------------------------------------------------------------------
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --train --precision-mode allow_mix_precision --json > "$TMP/tg.json"
check "train graph exit 0" test $? -eq 0
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --train --precision-mode allow_mix_precision --mode eager \
  --json > "$TMP/te.json"
check "train eager exit 0" test $? -eq 0
check "training has backward and optimizer kernels" json_true "$TMP/tg.json" \
  "any(k['phase'] == 'backward' for k in j['kernels']) and any(k['op_type'] == 'FusedMulApplyMomentum' for k in j['kernels'])"
check "training: BNTrainingUpdateGrad per BN" json_true "$TMP/tg.json" \
  "sum(k['op_type'] == 'BNTrainingUpdateGrad' for k in j['kernels']) == 5"
check "eager is slower than graph (host dispatch)" /usr/bin/python3 -c "
import json; g=json.load(open('$TMP/tg.json')); e=json.load(open('$TMP/te.json'))
assert e['iteration_ms'] > g['iteration_ms'] and e['host_dispatch_ms'] > 0 and e['lowering']['fused_away'] == 0"
check "eager on the 910: first-run compile (jit_compile on by default)" json_true "$TMP/te.json" \
  "j['first_run_compile_ms'] > 0"
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --train --mode eager --jit-compile off --task-queue 0 \
  --json > "$TMP/te0.json"
check "jit off: no compile; task queue off: more host time" /usr/bin/python3 -c "
import json; a=json.load(open('$TMP/te.json')); b=json.load(open('$TMP/te0.json'))
assert b['first_run_compile_ms'] == 0 and b['host_dispatch_ms'] > a['host_dispatch_ms']"
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --no-prefetch --json > "$TMP/np.json"
check "no prefetch: the input copy is exposed" json_true "$TMP/np.json" \
  "j['breakdown_ms']['h2d'] > 0 and abs(j['breakdown_ms']['h2d'] - j['h2d_copy_ms']) < 1e-9"

# --- compare-with, data parallel, trace, text output ----------------------------------------------
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --compare-with h200 --json > "$TMP/cmp.json"
check "compare-with keys" json_true "$TMP/cmp.json" \
  "j['reference_target'] == 'h200' and j['reference_iteration_ms'] > 0 and abs(j['ratio'] - j['iteration_ms'] / j['reference_iteration_ms']) < 1e-9"
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --train --cluster atlas800-910 --ranks 8 --json > "$TMP/dp.json"
check "data parallel: all-reduce timed" json_true "$TMP/dp.json" "j['allreduce_ms'] > 0 and 'allreduce_algo' in j"
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --mode eager --trace "$TMP/trace.json" > "$TMP/text.out"
check "text output names the breakdown" grep -q "breakdown  cube" "$TMP/text.out"
check "trace is Chrome-trace JSON with host and device tracks" json_true "$TMP/trace.json" \
  "len(set(e['pid'] for e in j['traceEvents'] if e['ph'] == 'X')) == 2 and all('ts' in e and 'dur' in e for e in j['traceEvents'] if e['ph'] == 'X')"
printf 'TbeConvElemwiseFusionPass:off\n' > "$TMP/fusion.cfg"
"$NPUGAP" perf "$NET" --target ascend910 --fusion-switch-file "$TMP/fusion.cfg" --json > "$TMP/fs.json"
check "fusion switch file turns the conv+relu fusion off" json_true "$TMP/fs.json" \
  "not any(k['op_type'] == 'FusionOp_Conv2D_Relu' for k in j['kernels'])"
"$NPUGAP" perf "$RES" --target ascend910 --batch 32 --train --precision-mode allow_mix_precision --json \
  --kernels-out "$TMP/lowered.csv" > "$TMP/ko.json"
check "--kernels-out exit 0" test $? -eq 0
check "--kernels-out: one row per lowered kernel, the calibration columns first" py -c "
import csv, json; rows = list(csv.DictReader(open('$TMP/lowered.csv'))); j = json.load(open('$TMP/ko.json'))
assert list(rows[0])[:5] == ['op_type', 'block_dim', 'inputs', 'outputs', 'time_us'], list(rows[0])
assert [r['op_type'] for r in rows] == [k['op_type'] for k in j['kernels']]
assert all(int(r['block_dim']) > 0 for r in rows)"
# --kernels-out writes the true dtypes, so it is read back as written (the default reading is the
# calibration files' shifted one).
"$NPUGAP" perf --kernels "$TMP/lowered.csv" --target ascend910 --dtype-labels as-written --json > "$TMP/ko_cal.json"
check "--kernels-out is read back by perf --kernels and re-predicted to its own times" json_true \
  "$TMP/ko_cal.json" "j['records'] > 0 and abs(j['sum_error_pct']) < 0.1 and j['unknown'] == []"
"$NPUGAP" perf --kernels "$TMP/lowered.csv" --target ascend910 --dtype-labels as-written \
  --out "$TMP/lowered_pred.csv" > /dev/null
py "$HERE/../../scripts/compare_kernels.py" "$TMP/lowered.csv" "$TMP/lowered_pred.csv" --detail Cast > "$TMP/cmp.txt"
check "compare_kernels.py: the same inventory on both sides" py -c "
rows = [l.split() for l in open('$TMP/cmp.txt') if l.startswith('all ')]
assert rows and rows[0][1] == rows[0][2] and abs(float(rows[0][3]) - float(rows[0][4])) < 0.01, rows"

# --- bad input: exit 2, one line -------------------------------------------------------------------
expect_error "unknown mode lists the valid ones" "valid: graph, eager" "$NPUGAP" perf "$NET" --mode sink
expect_error "unknown precision mode" "--precision-mode 'fp17'" "$NPUGAP" perf "$NET" --precision-mode fp17
expect_error "bad batch" "--batch 0" "$NPUGAP" perf "$RES" --batch 0
expect_error "bad task queue" "--task-queue 3" "$NPUGAP" perf "$NET" --task-queue 3
expect_error "bad jit" "--jit-compile 'maybe'" "$NPUGAP" perf "$NET" --jit-compile maybe
expect_error "ranks without cluster" "--cluster" "$NPUGAP" perf "$NET" --ranks 8
expect_error "unknown cluster" "--cluster" "$NPUGAP" perf "$NET" --cluster nowhere --ranks 2
expect_error "unknown reference target" "--compare-with" "$NPUGAP" perf "$NET" --compare-with tpu9
expect_error "unknown target" "tpu9" "$NPUGAP" perf "$NET" --target tpu9
expect_error "missing model" "no_such.onnx" "$NPUGAP" perf "$TMP/no_such.onnx"
expect_error "bad optimizer" "--optimizer 'sgdx'" "$NPUGAP" perf "$NET" --train --optimizer sgdx
printf 'TbeConvElemwiseFusionPass:perhaps\n' > "$TMP/bad.cfg"
expect_error "bad fusion switch line names file and line" "bad.cfg:1" "$NPUGAP" perf "$NET" --fusion-switch-file "$TMP/bad.cfg"
expect_error "symbolic batch unbound" "static shape" "$NPUGAP" perf "$RES"
expect_error "trace into a missing folder" "no_dir" "$NPUGAP" perf "$NET" --trace "$TMP/no_dir/t.json"
expect_error "kernels-out into a missing folder" "--kernels-out: $TMP/no_dir/k.csv: cannot write" \
  "$NPUGAP" perf "$NET" --kernels-out "$TMP/no_dir/k.csv"
check "no partial trace file" test ! -e "$TMP/no_dir/t.json"
check "no partial kernels file" test ! -e "$TMP/no_dir/k.csv"
expect_error "--kernels-out without a model" "perf --kernels-out $TMP/k2.csv: only with a MODEL" \
  "$NPUGAP" perf --kernels "$TMP/lowered.csv" --kernels-out "$TMP/k2.csv"
check "no kernels file without a model" test ! -e "$TMP/k2.csv"
expect_error "--trace without a model" "perf --trace" "$NPUGAP" perf --kernels "$TMP/lowered.csv" --trace "$TMP/t2.json"

cli_test_end "perf_model_cli"
