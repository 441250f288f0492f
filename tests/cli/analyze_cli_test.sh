#!/usr/bin/env bash
# End-to-end tests of `npugap analyze`: the summary and the JSON / HTML outputs, --fail-on exit
# codes, every bad-input path (exit 2, one stderr line, nothing on stdout, no output file), and
# atomic outputs (an old file survives a failed run; Ctrl-C leaves no half-written file).
set -uo pipefail
NPUGAP=${1:?usage: analyze_cli_test.sh NPUGAP_BINARY}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

# expect_error NAME TEXT COMMAND...: common.sh's contract (exit 2, one stderr line containing TEXT,
# no stdout), and no report file written.
expect_error() {
  local name=$1 text=$2
  shift 2
  rm -f "$TMP/r.json" "$TMP/r.html"
  "$@" > "$TMP/out" 2> "$TMP/err"
  local rc=$? lines
  lines=$(wc -l < "$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$text" "$TMP/err" && [ ! -s "$TMP/out" ] &&
    [ ! -e "$TMP/r.json" ] && [ ! -e "$TMP/r.html" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (rc=$rc, stderr lines=$lines): $(head -c 300 "$TMP/err")"
  fi
}

"$NPUGAP" example simplenet -o "$TMP/net.onnx" --batch 2 > /dev/null
"$NPUGAP" example simplenet -o "$TMP/big.onnx" --batch 2048 > /dev/null
NET=$TMP/net.onnx
BIG=$TMP/big.onnx

# --- the summary ----------------------------------------------------------------------------
expect_rc "analyze exit 0" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --dev-target cpu-dev
check "summary: every section" bash -c "for s in compat precision memory perf comm; do grep -q \"^\$s \" '$TMP/out' || exit 1; done"
check "summary: precision ran (a verdict, the output cosine)" grep -Eq "^precision  (OK|WARNING|FAIL) .*output cosine" "$TMP/out"
check "summary: perf ran against cpu-dev" grep -Eq "^perf       (OK|WARNING|FAIL) .*iteration on cpu-dev" "$TMP/out"
check "summary: recommended configuration" grep -q "recommended configuration" "$TMP/out"
check "summary: --soc_version from the profile" grep -q "atc flag   --soc_version=Ascend910B2" "$TMP/out"
check "piped: no colour" bash -c "! grep -q $'\033' '$TMP/out'"
check "piped: no progress bar, stderr empty" test ! -s "$TMP/err"
check "summary fits one screen (< 40 lines)" test "$(wc -l < "$TMP/out")" -lt 40

# --- JSON and HTML files --------------------------------------------------------------------
expect_rc "--json --html exit 0" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --json "$TMP/r.json" --html "$TMP/r.html"
check "stdout names the files" grep -q "wrote      $TMP/r.html" "$TMP/out"
for k in model target compat precision memory perf comm recommendations; do
  check "json key $k" json_true "$TMP/r.json" "'$k' in j"
done
check "every section has a verdict" json_true "$TMP/r.json" \
  "all(j[k]['verdict'] in ('ok','warning','fail','not_available') for k in ['compat','precision','memory','perf','comm'])"
check "not-available sections carry a reason and no numbers" json_true "$TMP/r.json" \
  "all(j[k]['verdict'] == 'not_available' and j[k]['reason'] and 'metrics' not in j[k] for k in ['comm'])"
check "precision and perf have numbers" json_true "$TMP/r.json" \
  "all(j[k]['verdict'] != 'not_available' and j[k]['metrics'] for k in ['precision','perf'])"
check "memory: batch 2 fits the 910B2" json_true "$TMP/r.json" \
  "j['memory']['verdict'] == 'ok' and j['memory']['metrics']['needed_bytes']['value'] > 0"
check "memory timeline: one point per node" json_true "$TMP/r.json" \
  "len(j['memory']['charts'][0]['series'][0]['y']) == j['model']['nodes']"
check "html: every section id" bash -c "for s in compat precision memory perf comm recommendations; do grep -q \"id=\\\"section-\$s\\\"\" '$TMP/r.html' || exit 1; done"
check "html: no script" bash -c "! grep -qi '<script' '$TMP/r.html'"
check "no temporary left" bash -c "! ls '$TMP' | grep -q tmp-npugap"
expect_rc "--json - exit 0" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --json -
check "--json -: stdout is the JSON" json_true "$TMP/out" "j['target']['name'] == 'ascend910b2'"

# --optimizer adamw reaches the lowering as AdamW (MindSpore's AdamWeightDecay kernels), not Adam.
expect_rc "--optimizer adamw: exit 0" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --train --optimizer adamw \
  --skip precision --json "$TMP/aw.json"
check "adamw: AdamWeightDecay's update kernels in the perf section" json_true "$TMP/aw.json" \
  "'AdamApplyOneWithDecayAssign' in json.dumps(j['perf']) and '\"Adam\"' not in json.dumps(j['perf'])"

# --- --fail-on --------------------------------------------------------------------------------
expect_rc "training at batch 2048 does not fit: --fail-on memory exits 1" 1 \
  "$NPUGAP" analyze "$BIG" --target ascend910b2 --train --optimizer adam --fail-on memory --json "$TMP/big.json" --skip precision
check "big: memory fails; fixed-batch file, so the fix says to re-export" json_true "$TMP/big.json" \
  "j['memory']['verdict'] == 'fail' and 'max_batch' not in j['memory']['metrics'] and 'symbolic batch' in j['memory']['fix']"
check "big: no batch is recommended that does not fit" json_true "$TMP/big.json" \
  "not [r for r in j['recommendations'] if r['kind'] == 'batch']"
check "big: memory cause names the bytes" json_true "$TMP/big.json" "'needs' in j['memory']['cause']"
expect_rc "same run without --fail-on exits 0" 0 "$NPUGAP" analyze "$BIG" --target ascend910b2 --train --skip precision
expect_rc "--fail-on compat,comm: those did not fail" 0 "$NPUGAP" analyze "$BIG" --target ascend910b2 --train --skip precision --fail-on compat,comm
expect_rc "--fail-on all includes memory" 1 "$NPUGAP" analyze "$BIG" --target ascend910b2 --train --skip precision --fail-on all
expect_rc "--fail-on precision: skipped is not a failure" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --skip precision --fail-on precision
check "--fail-on precision: says it is not gated" grep -q "precision: section not available, not gated" "$TMP/err"

# --- communication ----------------------------------------------------------------------------
expect_rc "--cluster --ranks exit 0" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 --cluster atlas800t-a2 --ranks 16 --json "$TMP/c.json"
check "comm: a verdict, the all-reduce at 16 ranks, the HCCL_BUFFSIZE setting" json_true "$TMP/c.json" \
  "j['comm']['verdict'] in ('ok','fail') and j['comm']['charts'][0]['series'][0]['x'][-1] == 16 and any(r['name'] == 'HCCL_BUFFSIZE' for r in j['recommendations'])"

# --- precision and perf are the commands' own numbers ---------------------------------------------
expect_rc "analyze --precision-mode mixed_float16 --samples 2 --trace" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 \
  --precision-mode mixed_float16 --samples 2 --dev-target cpu-dev --trace "$TMP/t.json" --json "$TMP/p.json"
"$NPUGAP" precision "$NET" --target ascend910b2 --precision-mode mixed_float16 --samples 2 --json > "$TMP/prec.json" 2> /dev/null
check "precision: output cosine and max error = npugap precision --json" json_true "$TMP/p.json" \
  "abs(j['precision']['metrics']['output_cosine']['value'] - json.load(open('$TMP/prec.json'))['outputs'][0]['cosine']) < 1e-12 and abs(j['precision']['metrics']['output_max_abs_error']['value'] - json.load(open('$TMP/prec.json'))['outputs'][0]['max_abs_err']) < 1e-12"
check "precision: one chart point per compared tensor" json_true "$TMP/p.json" \
  "len(j['precision']['charts'][0]['series'][0]['y']) == len(json.load(open('$TMP/prec.json'))['tensors'])"
check "precision: verdict follows the output cosine" json_true "$TMP/p.json" \
  "(j['precision']['verdict'] == 'fail') == (j['precision']['metrics']['output_cosine']['value'] < 0.99)"
"$NPUGAP" perf "$NET" --target ascend910b2 --precision-mode mixed_float16 --compare-with cpu-dev --json > "$TMP/perf.json" 2> /dev/null
check "perf: deploy / dev times and the ratio = npugap perf --json --compare-with cpu-dev" json_true "$TMP/p.json" \
  "[round(j['perf']['metrics'][k]['value'], 9) for k in ('deploy_ms','dev_ms','slowdown')] == [round(json.load(open('$TMP/perf.json'))[k], 9) for k in ('iteration_ms','reference_iteration_ms','ratio')]"
check "perf: top kernel = npugap perf's" json_true "$TMP/p.json" \
  "j['perf']['details'][0].startswith(json.load(open('$TMP/perf.json'))['top_kernels'][0]['name'])"
check "--trace: a Chrome trace with the device kernels" json_true "$TMP/t.json" \
  "len([e for e in j['traceEvents'] if e.get('pid') == 2 and e['ph'] == 'X']) == len(json.load(open('$TMP/perf.json'))['kernels'])"
R=$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/perf.json'))['ratio'])")
if /usr/bin/python3 -c "import sys; sys.exit(0 if $R > 1 else 1)"; then
  expect_rc "--max-slowdown below deploy/dev: --fail-on perf exits 1" 1 "$NPUGAP" analyze "$NET" --target ascend910b2 \
    --precision-mode mixed_float16 --skip precision --max-slowdown 1 --fail-on perf
else
  expect_rc "--max-slowdown 1 with deploy faster than dev: --fail-on perf exits 0" 0 "$NPUGAP" analyze "$NET" \
    --target ascend910b2 --precision-mode mixed_float16 --skip precision --max-slowdown 1 --fail-on perf
fi
expect_rc "--train --cluster: scaling efficiency from the predicted backward" 0 "$NPUGAP" analyze "$NET" --target ascend910b2 \
  --train --skip precision --cluster atlas800t-a2 --ranks 16 --json "$TMP/dp.json"
check "comm: scaling efficiency at 16 ranks in (0, 1]" json_true "$TMP/dp.json" \
  "0 < j['comm']['metrics']['scaling_efficiency']['value'] <= 1"

# --- --dev-batch: the seed's scenario (dev cpu-dev at batch 32, deploy at 64) -------------------
"$NPUGAP" example simplenet -o "$TMP/dyn.onnx" --dynamic-batch > /dev/null
expect_rc "--batch 64 --dev-batch 32 exit 0" 0 "$NPUGAP" analyze "$TMP/dyn.onnx" --target ascend910b2 --batch 64 \
  --dev-batch 32 --skip precision --json "$TMP/db.json"
check "summary: dev batch in the header" grep -q "batch 64  dev batch 32" "$TMP/out"
check "summary: perf leads with per-sample times" grep -Eq "^perf .*per sample on the target" "$TMP/out"
check "json: config.dev_batch, per-sample keys, slowdown per sample" json_true "$TMP/db.json" \
  "j['config']['dev_batch'] == 32 and j['config']['batch'] == 64 and abs(j['perf']['metrics']['slowdown']['value'] - j['perf']['metrics']['deploy_sample_ms']['value'] / j['perf']['metrics']['dev_sample_ms']['value']) < 1e-12 and abs(j['perf']['metrics']['deploy_sample_ms']['value'] * 64 - j['perf']['metrics']['deploy_ms']['value']) < 1e-9"
"$NPUGAP" analyze "$TMP/dyn.onnx" --target ascend910b2 --batch 64 --skip precision --json "$TMP/db64.json" > /dev/null
check "json: without --dev-batch the dev runs the deploy batch, dev_ms larger" json_true "$TMP/db64.json" \
  "j['config']['dev_batch'] == 64 and j['perf']['metrics']['dev_ms']['value'] > json.load(open('$TMP/db.json'))['perf']['metrics']['dev_ms']['value']"

# --- bad input ----------------------------------------------------------------------------------
A=("$NPUGAP" analyze "$NET" --target ascend910b2 --json "$TMP/r.json" --html "$TMP/r.html")
expect_error "missing model" "nope.onnx" "$NPUGAP" analyze "$TMP/nope.onnx" --target ascend910b2 --json "$TMP/r.json"
echo "not a model" > "$TMP/junk.onnx"
expect_error "not a model" "junk.onnx" "$NPUGAP" analyze "$TMP/junk.onnx" --target ascend910b2 --json "$TMP/r.json"
expect_error "unknown target" "nope" "${A[@]/ascend910b2/nope}"
expect_error "unknown dev target" "--dev-target" "${A[@]}" --dev-target nope
expect_error "--batch 0" "--batch 0" "${A[@]}" --batch 0
expect_error "bad --op-select-implmode" "--op-select-implmode 'x'" "${A[@]}" --op-select-implmode x
expect_error "--batch on a fixed-batch file" "fixed batch of 2" "${A[@]}" --batch 64
expect_error "--dev-batch 0" "--dev-batch 0: must be positive" "${A[@]}" --dev-batch 0
expect_error "--dev-batch -4" "--dev-batch -4: must be positive" "${A[@]}" --dev-batch -4
expect_error "--dev-batch not a number" "dev-batch" "${A[@]}" --dev-batch many
expect_error "--dev-batch on a fixed-batch file" "--dev-batch 32: $TMP/net.onnx has a fixed batch of 2" "${A[@]}" --dev-batch 32
expect_error "--optimizer without --train" "--optimizer adam: only with --train" "${A[@]}" --optimizer adam
expect_error "unknown optimizer" "lion" "${A[@]}" --train --optimizer lion
expect_error "unknown precision mode" "--precision-mode 'fp64'" "${A[@]}" --precision-mode fp64
expect_error "--samples 0" "--samples 0" "${A[@]}" --samples 0
expect_error "--skip unknown section" "--skip 'speed'" "${A[@]}" --skip speed
expect_error "--samples with --inputs" "--inputs set is one sample" "${A[@]}" --samples 3 --inputs "$TMP/net.onnx"
expect_error "--max-slowdown 0.5" "--max-slowdown 0.5" "${A[@]}" --max-slowdown 0.5
expect_error "--max-slowdown not a number" "max-slowdown" "${A[@]}" --max-slowdown abc
expect_error "--fail-on unknown" "unknown section 'memroy'" "${A[@]}" --fail-on memroy
expect_error "--fail-on trailing comma" "--fail-on 'memory,'" "${A[@]}" --fail-on memory,
expect_error "unknown cluster" "nope" "${A[@]}" --cluster nope --ranks 8
expect_error "--cluster without --ranks" "--ranks N is required" "${A[@]}" --cluster atlas800t-a2
expect_error "--ranks without --cluster" "--ranks: only with --cluster" "${A[@]}" --ranks 8
expect_error "--ranks 0" "--ranks 0" "${A[@]}" --cluster atlas800t-a2 --ranks 0
expect_error "--ranks beyond the cluster" "--ranks 100000000" "${A[@]}" --cluster atlas800t-a2 --ranks 100000000
expect_error "--json in a missing folder" "does not exist" "$NPUGAP" analyze "$NET" --target ascend910b2 --json "$TMP/no/dir/r.json"
expect_error "--html is a folder" "is a directory" "$NPUGAP" analyze "$NET" --target ascend910b2 --html "$TMP"
expect_error "--html -" "--html -" "$NPUGAP" analyze "$NET" --target ascend910b2 --html -
expect_error "--json and --html the same file" "same file as --json" "$NPUGAP" analyze "$NET" --target ascend910b2 --json "$TMP/r.json" --html "$TMP/r.json"
expect_error "--json over the model" "would overwrite the model" "$NPUGAP" analyze "$NET" --target ascend910b2 --json "$NET"
expect_error "--inputs missing" "--inputs $TMP/none.npy" "${A[@]}" --inputs "$TMP/none.npy"
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/wrong.npy', np.zeros((2, 5), np.float32))"
expect_error "--inputs of the wrong shape" "--inputs" "${A[@]}" --inputs "$TMP/wrong.npy"
expect_error "unknown flag" "--frobnicate" "${A[@]}" --frobnicate

# --- atomic outputs -------------------------------------------------------------------------------
echo OLD > "$TMP/keep.json"
"$NPUGAP" analyze "$NET" --target ascend910b2 --json "$TMP/keep.json" --precision-mode bad > /dev/null 2>&1
check "a failed run leaves the old file as it was" test "$(cat "$TMP/keep.json")" = OLD
for delay in 0.3 1 2; do
  rm -f "$TMP/int.html"
  "$NPUGAP" analyze "$NET" --target ascend910b2 --html "$TMP/int.html" > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -INT "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  check "Ctrl-C after ${delay}s: no output or a whole one" bash -c \
    "[ ! -e '$TMP/int.html' ] || tail -n 1 '$TMP/int.html' | grep -q '</html>'"
  check "Ctrl-C after ${delay}s: no temporary left" bash -c "! ls '$TMP' | grep -q int.html.tmp-npugap"
done

# --- a terminal: progress bar and colour (through `script`, which gives the command a TTY) ---------
if command -v script > /dev/null; then
  script -qec "'$NPUGAP' analyze '$NET' --target ascend910b2" /dev/null > "$TMP/tty.txt" 2>&1
  check "TTY: a progress bar" grep -q "6/6 done" "$TMP/tty.txt"
  check "TTY: colour" grep -q $'\033\\[32m' "$TMP/tty.txt"
  NO_COLOR=1 script -qec "'$NPUGAP' analyze '$NET' --target ascend910b2" /dev/null > "$TMP/tty2.txt" 2>&1
  check "TTY with NO_COLOR: no colour" bash -c "! grep -q $'\033\\[32m' '$TMP/tty2.txt'"
fi

# --- a model with a symbolic batch: the largest batch is searched and recommended -----------------
MODELS=${NPUGAP_MODELS:-$(dirname "${BASH_SOURCE[0]}")/../../models}
if [ -f "$MODELS/resnet18_op13.onnx" ]; then
  R18=$MODELS/resnet18_op13.onnx
  expect_rc "resnet18 training at batch 4096 on the 310P3: --fail-on memory exits 1" 1 \
    "$NPUGAP" analyze "$R18" --target ascend310p3 --batch 4096 --train --fail-on memory --json "$TMP/r18.json" --skip precision
  check "resnet18: the fix and the recommended batch are the largest batch that fits" json_true "$TMP/r18.json" \
    "j['memory']['verdict'] == 'fail' and 0 < j['memory']['metrics']['max_batch']['value'] < 4096 and [r['value'] for r in j['recommendations'] if r['kind'] == 'batch'] == [str(j['memory']['metrics']['max_batch']['value'])] and str(j['memory']['metrics']['max_batch']['value']) in j['memory']['fix']"
  B=$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/r18.json'))['memory']['metrics']['max_batch']['value'])")
  expect_rc "resnet18 at the recommended batch passes the gate" 0 \
    "$NPUGAP" analyze "$R18" --target ascend310p3 --batch "$B" --train --fail-on memory --skip precision
  expect_rc "resnet18 one above it fails the gate" 1 \
    "$NPUGAP" analyze "$R18" --target ascend310p3 --batch "$((B + 1))" --train --fail-on memory --skip precision
else
  echo "analyze_cli_test: $MODELS/resnet18_op13.onnx not generated; batch-search checks skipped"
fi

cli_test_end "analyze_cli_test"
