# Shared by the CLI test scripts (sourced): pass / fail counting and the checks every script makes.
# A script calls cli_test_begin after sourcing this file and ends with cli_test_end, whose status
# (non-zero when a check failed) is the script's exit status.

CLI_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# cli_test_begin: a scratch folder $TMP, removed when the script exits, and zeroed counters.
cli_test_begin() {
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  passed=0
  failed=0
}

# cli_test_end NAME [NOTE]: prints "NAME: P passed, F failed[NOTE]"; succeeds when nothing failed.
cli_test_end() {
  echo "$1: $passed passed, $failed failed${2:-}"
  [ "$failed" -eq 0 ]
}

check() {  # check NAME CONDITION-COMMAND...: the command must succeed
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}

# expect_error NAME TEXT COMMAND...: the project's bad-input contract — exit 2, exactly one stderr
# line containing TEXT, nothing on stdout.
expect_error() {
  local name=$1 text=$2
  shift 2
  "$@" > "$TMP/out" 2> "$TMP/err"
  local rc=$? lines
  lines=$(wc -l < "$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$text" "$TMP/err" && [ ! -s "$TMP/out" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (rc=$rc, stderr lines=$lines): $(head -c 300 "$TMP/err")"
  fi
}

expect_rc() {  # expect_rc NAME RC COMMAND...: the command exits with RC (stdout, stderr in $TMP)
  local name=$1 want=$2
  shift 2
  "$@" > "$TMP/out" 2> "$TMP/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (rc=$rc, want $want): $(head -c 300 "$TMP/err")"
  fi
}

# Debian's python3 (with torch, onnx and numpy), not whatever python3 comes first on PATH.
py() { /usr/bin/python3 "$@"; }

# json_true FILE PYTHON-EXPR: the expression over the parsed file (named j) is true.
json_true() { py -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }

# json_get FILE PYTHON-EXPR: prints the expression over the parsed file (named j); a tuple prints
# space-separated, as print(a, b) does.
json_get() { py -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# tiny_onnx_models <<'PYEOF' ... PYEOF: runs the Python on stdin with tiny_onnx's names imported
# (tests/cli/tiny_onnx.py, a protobuf encoder that needs no onnx package) and `out` = $TMP.
tiny_onnx_models() {
  PYTHONPATH="$CLI_TEST_DIR" py -c 'import sys
from tiny_onnx import *
out = sys.argv[1]
exec(compile(sys.stdin.read(), "<stdin>", "exec"))' "$TMP"
}
