#!/usr/bin/env bash
# Shape sub-graph folding at import (onnx/fold_constants.h) seen from the CLI: the generated
# transformers (bert_encoder, gpt2_decoder) and vit_b_16 get static shapes, hence memory and perf
# verdicts, in analyze / memory / perf / check once their inputs are bound; unbound, compat still
# reports the computed Reshape as blocking.
set -uo pipefail
NPUGAP=${1:?usage: shape_fold_cli_test.sh NPUGAP_BINARY [MODELS_DIR]}
MODELS=${2:-${NPUGAP_MODELS:-$(dirname "${BASH_SOURCE[0]}")/../../models}}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

BERT=$MODELS/bert_encoder_op17.onnx
GPT2=$MODELS/gpt2_decoder_op17.onnx
VIT=$MODELS/vit_b_16_op17.onnx
if [ ! -f "$BERT" ] || [ ! -f "$GPT2" ] || [ ! -f "$VIT" ]; then
  echo "shape_fold_cli: generated models not found in $MODELS (scripts/gen_models.py); skipped"
  exit 0
fi

# --- analyze: every section but precision gets a verdict, none is N/A --------------------------
for spec in "$BERT --shape input_ids=8,128" "$GPT2 --shape input_ids=8,128" "$VIT --batch 8"; do
  name=$(basename "${spec%% *}" .onnx)
  # shellcheck disable=SC2086
  expect_rc "$name: analyze runs" 0 "$NPUGAP" analyze $spec --target ascend910b2 --skip precision --json "$TMP/$name.json"
  check "$name: compat, memory and perf are ok" json_true "$TMP/$name.json" \
    "[j[s]['verdict'] for s in ('compat', 'memory', 'perf')] == ['ok', 'ok', 'ok']"
  check "$name: memory and perf report numbers" json_true "$TMP/$name.json" \
    "j['memory']['metrics'] and j['perf']['metrics'] and not j['compat']['cause']"
done

# --- a batch rebinds the --shape bindings' leading dim (cli::AtBatch) ---------------------------
# Bound only by --shape, the largest-batch search and --dev-batch import the model at other batches:
# input_ids=8x128 becomes 16x128 (search) and 4x128 (dev), so neither sees a fixed batch.
check "bert: largest batch searched (beyond the analysed 8)" json_true "$TMP/bert_encoder_op17.json" \
  "j['memory']['metrics']['max_batch']['value'] > 8"
expect_rc "bert: analyze --dev-batch 4 runs" 0 "$NPUGAP" analyze "$BERT" --target ascend910b2 --shape input_ids=8,128 \
  --dev-batch 4 --skip precision --json "$TMP/bert_dev4.json"
check "bert --dev-batch 4: cpu-dev runs 4 x 128 tokens, in less time than 8 x 128" json_true "$TMP/bert_dev4.json" \
  "j['config']['dev_batch'] == 4 and j['perf']['metrics']['dev_ms']['value'] < json.load(open('$TMP/bert_encoder_op17.json'))['perf']['metrics']['dev_ms']['value']"

# --- memory, perf MODEL and check on bert with bound shapes ---------------------------------------
expect_rc "bert: memory runs" 0 "$NPUGAP" memory "$BERT" --target ascend910b2 --shape input_ids=8,128 --json
check "bert: memory plans a positive activation peak" json_true "$TMP/out" "j['activation_peak_bytes'] > 0"
expect_rc "bert: perf MODEL runs" 0 "$NPUGAP" perf "$BERT" --target ascend910b2 --shape input_ids=8,128 --json
check "bert: perf predicts an iteration and no Range / Shape kernel" json_true "$TMP/out" \
  "j['iteration_ms'] > 0 and not [k for k in j['kernels'] if k['op_type'] in ('Range', 'Shape')]"
expect_rc "bert bound: check is clean, exit 0" 0 "$NPUGAP" check "$BERT" --target ascend910b2 --shape input_ids=8,128 --json
check "bert bound: deployable, no dynamic finding, shape nodes folded" json_true "$TMP/out" \
  "j['deployable'] and j['dynamic'] == [] and j['folded_nodes'] > 100 and 'Range' not in [n['op_type'] for n in j['nodes']]"
"$NPUGAP" check "$BERT" --target ascend910b2 --shape input_ids=8,128 > "$TMP/text.txt"
check "bert bound: text says how many nodes were folded" grep -q "^folded   [0-9]* shape nodes into constants" "$TMP/text.txt"

# --- unbound: nothing that reads the input's shape folds, the Reshape still blocks ---------------
expect_rc "bert unbound: check exits 1" 1 "$NPUGAP" check "$BERT" --target ascend910b2 --json
check "bert unbound: a computed Reshape input is blocking" json_true "$TMP/out" \
  "not j['deployable'] and [f for f in j['dynamic'] if f['kind'] == 'shape_subgraph' and f['blocking'] and 'of Reshape' in f['detail']]"
check "bert unbound: the Range is still a node" json_true "$TMP/out" "'Range' in [n['op_type'] for n in j['nodes']]"

# --- run and info keep the file's own nodes ---------------------------------------------------------
expect_rc "bert: info runs" 0 "$NPUGAP" info "$BERT" --shape input_ids=8,128
check "bert: info counts the file's 328 nodes" grep -q "328" "$TMP/out"

cli_test_end "shape_fold_cli"
