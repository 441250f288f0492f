#!/usr/bin/env bash
# Runs every model of a gen_models.py manifest through `npugap run` and compares its output
# with PyTorch's.
#
# Usage: tests/models/run_models_test.sh NPUGAP_BINARY MODEL_DIR [FILTER_REGEX]
#   MODEL_DIR     holds manifest.json and the files scripts/gen_models.py wrote
#   FILTER_REGEX  optional: only models whose "<name>_op<opset>" matches (grep -E)
# Environment: NPUGAP_THREADS (default 2), NPUGAP_MODEL_TIMEOUT seconds per model (default 900),
#              PYTHON (default /usr/bin/python3, needs numpy).
# A model passes when max|npugap - torch| <= 1e-3 * max(1, max|torch|) and the cosine
# similarity is >= 0.9999. Prints one line per model and "N passed, N failed"; exits 1 if
# any model fails (or none ran), 2 on a usage error.
set -u

if [[ $# -lt 2 ]]; then
  echo "usage: $0 NPUGAP_BINARY MODEL_DIR [FILTER_REGEX]" >&2
  exit 2
fi
BIN=$1
DIR=$2
FILTER=${3:-}
PY=${PYTHON:-/usr/bin/python3}
THREADS=${NPUGAP_THREADS:-2}
TIMEOUT=${NPUGAP_MODEL_TIMEOUT:-900}
MANIFEST=$DIR/manifest.json

[[ -x $BIN ]] || { echo "not an executable: $BIN" >&2; exit 2; }
[[ -f $MANIFEST ]] || { echo "no manifest: $MANIFEST (run scripts/gen_models.py $DIR)" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# One line per model: key <TAB> model file <TAB> input file <TAB> torch output file <TAB> output name
"$PY" - "$MANIFEST" > "$WORK/list" <<'PYEOF' || exit 2
import json, sys
m = json.load(open(sys.argv[1]))
for e in m["models"]:
    (inp,) = e["inputs"].values()  # gen_models.py writes one input per model
    (out_name, out_file), = e["outputs"].items()
    print(f"{e['name']}_op{e['opset']}\t{e['model']}\t{inp}\t{out_file}\t{out_name}")
PYEOF

passed=0
failed=0
failed_names=()
while IFS=$'\t' read -r key model input torch_out out_name; do
  if [[ -n $FILTER ]] && ! grep -Eq -- "$FILTER" <<<"$key"; then continue; fi
  outdir=$WORK/$key
  mkdir -p "$outdir"
  start=$(date +%s.%N)
  timeout "$TIMEOUT" "$BIN" run "$DIR/$model" --inputs "$DIR/$input" --save-outputs "$outdir" \
      --threads "$THREADS" > "$WORK/$key.log" 2>&1
  rc=$?
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  if [[ $rc -ne 0 ]]; then
    why=$(grep -v '^\s*$' "$WORK/$key.log" | tail -n 1 | cut -c1-200)
    [[ -z $why ]] && why="(no output)"
    [[ $rc -eq 124 ]] && why="timed out after ${TIMEOUT}s"
    printf 'FAIL %-28s npugap exited %d (%ss): %s\n' "$key" "$rc" "$secs" "$why"
    failed=$((failed + 1)); failed_names+=("$key")
    continue
  fi
  verdict=$("$PY" - "$outdir" "$out_name" "$DIR/$torch_out" <<'PYEOF'
import glob, os, re, sys
import numpy as np
outdir, name, ref_path = sys.argv[1:4]
safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
path = os.path.join(outdir, safe + ".npy")
if not os.path.exists(path):
    files = glob.glob(os.path.join(outdir, "*.npy"))
    if len(files) != 1:
        print(f"FAIL no {safe}.npy among saved outputs {sorted(os.path.basename(f) for f in files)}")
        sys.exit()
    path = files[0]
got = np.load(path)
ref = np.load(ref_path)
if got.shape != ref.shape:
    print(f"FAIL shape {list(got.shape)} != torch {list(ref.shape)}")
    sys.exit()
got = got.astype(np.float64).ravel()
ref = ref.astype(np.float64).ravel()
if not np.isfinite(got).all():
    print(f"FAIL {int((~np.isfinite(got)).sum())} non-finite values")
    sys.exit()
err = float(np.abs(got - ref).max()) if ref.size else 0.0
scale = max(1.0, float(np.abs(ref).max()) if ref.size else 0.0)
denom = np.linalg.norm(got) * np.linalg.norm(ref)
cos = float(got @ ref / denom) if denom > 0 else (1.0 if np.array_equal(got, ref) else 0.0)
ok = err <= 1e-3 * scale and cos >= 0.9999
print(f"{'PASS' if ok else 'FAIL'} max_abs_err={err:.3g} (limit {1e-3 * scale:.3g}) cosine={cos:.6f}")
PYEOF
)
  printf '%s %-28s %ss  %s\n' "${verdict%% *}" "$key" "$secs" "${verdict#* }"
  if [[ $verdict == PASS* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failed_names+=("$key")
  fi
done < "$WORK/list"

if [[ $failed -gt 0 ]]; then echo "failed: ${failed_names[*]}"; fi
echo "$passed passed, $failed failed"
if [[ $failed -gt 0 || $passed -eq 0 ]]; then exit 1; fi
exit 0
