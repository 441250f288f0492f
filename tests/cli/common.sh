# Shared by the CLI test scripts (sourced): pass / fail counting. Each script sets
# passed=0 failed=0 first and exits non-zero when failed > 0.

check() {  # check NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}
