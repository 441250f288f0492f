#!/usr/bin/env bash
# End-to-end tests of `npugap targets`: the list and every built-in profile (text and JSON), a user
# profile from a file, and every bad-input path (exit code 2, exactly one line on stderr naming the
# file and the field).
set -uo pipefail
NPUGAP=${1:?usage: targets_cli_test.sh NPUGAP_BINARY}
NPUGAP=$(cd "$(dirname "$NPUGAP")" && pwd)/$(basename "$NPUGAP")  # absolute: one test runs elsewhere
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin
NAMES="ascend310p3 ascend910 ascend910b1 ascend910b2 ascend910b3 ascend910b4 ascend910c cpu-dev h200"

is_json() { /usr/bin/python3 -c 'import json,sys; json.load(sys.stdin)' < "$1"; }

# mutate OUT PYTHON-STATEMENT: writes the 910B2 profile to OUT after applying the statement to `p`.
"$NPUGAP" targets show ascend910b2 --json > "$TMP/b2.json"
mutate() {
  /usr/bin/python3 -c "
import json, sys
p = json.load(open('$TMP/b2.json'))['profile']
$2
json.dump(p, open('$1', 'w'), indent=2)"
}

# --- listing ---------------------------------------------------------------
"$NPUGAP" targets > "$TMP/list.txt" 2> "$TMP/list.err"
check "targets exit 0" test $? -eq 0
check "targets: nothing on stderr" test ! -s "$TMP/list.err"
for n in $NAMES; do check "targets lists $n" grep -q "^$n " "$TMP/list.txt"; done
check "targets marks the default" grep -q "^ascend910b2 .*\[default\]" "$TMP/list.txt"
"$NPUGAP" targets --json > "$TMP/list.json"
check "targets --json exit 0" test $? -eq 0
check "targets --json parses" is_json "$TMP/list.json"
check "targets --json content" /usr/bin/python3 -c "
import json
d = json.load(open('$TMP/list.json'))
names = [t['name'] for t in d['targets']]
assert names == '$NAMES'.split(), names
assert d['default'] == 'ascend910b2'
b2 = next(t for t in d['targets'] if t['name'] == 'ascend910b2')
assert b2['cube_cores'] == 24 and b2['vector_cores'] == 48, b2
assert b2['device_memory_bytes'] == 64 * 2**30, b2
assert abs(b2['peak_fp16_tflops'] - 24 * 4096 * 2 * 1.8e9 / 1e12) < 0.01, b2
a = next(t for t in d['targets'] if t['name'] == 'ascend910')
assert a['peak_fp16_tflops'] == 256, a
"

# --- show: every built-in, text and JSON -------------------------------------
for n in $NAMES; do
  "$NPUGAP" targets show "$n" > "$TMP/show.txt" 2> "$TMP/show.err"
  check "show $n exit 0" test $? -eq 0
  check "show $n: no warnings" test ! -s "$TMP/show.err"
  check "show $n prints sources" grep -q "facts: .* assumed" "$TMP/show.txt"
  "$NPUGAP" targets show "$n" --json > "$TMP/show.json"
  check "show $n --json parses" is_json "$TMP/show.json"
done
check "show --json carries the profile" /usr/bin/python3 -c "
import json
d = json.load(open('$TMP/show.json'))
assert d['name'] == 'h200' and d['origin'] == 'built-in' and d['warnings'] == []
assert d['profile']['memory']['bandwidth']['unit'] == 'TB/s'
assert sum(d['confidence_counts'].values()) > 40
"
# Built-ins do not depend on the working directory (they are embedded in the binary).
(cd "$TMP" && "$NPUGAP" targets show ascend310p3 > /dev/null)
check "show works from another directory" test $? -eq 0

# --- a user profile from a file ----------------------------------------------
mutate "$TMP/mine.json" "p['name'] = 'my-npu'; p['memory']['device']['value'] = 48"
"$NPUGAP" targets show "$TMP/mine.json" --json > "$TMP/mine.out"
check "show FILE exit 0" test $? -eq 0
check "show FILE reads it" /usr/bin/python3 -c "
import json
d = json.load(open('$TMP/mine.out'))
assert d['name'] == 'my-npu' and d['device_memory_bytes'] == 48 * 2**30 and d['origin'] == '$TMP/mine.json', d
"
mutate "$TMP/extra.json" "p['colour'] = 'red'"
"$NPUGAP" targets show "$TMP/extra.json" > /dev/null 2> "$TMP/extra.err"
check "unknown key: exit 0" test $? -eq 0
check "unknown key: a warning naming the field" grep -qF "npugap: warning: $TMP/extra.json: field 'colour': unknown key" "$TMP/extra.err"

# --- bad input -------------------------------------------------------------------
expect_error "unknown target lists the valid ones" "unknown target 'ascend911'; valid targets: ascend310p3, ascend910, ascend910b1, ascend910b2" \
  "$NPUGAP" targets show ascend911
expect_error "missing file" "$TMP/none.json: target profile file not found" "$NPUGAP" targets show "$TMP/none.json"
expect_error "directory" "not a regular file" "$NPUGAP" targets show "$TMP/"
printf '{\n  "name": "x",\n  "kind": \n}\n' > "$TMP/syntax.json"
expect_error "JSON syntax error" "$TMP/syntax.json: invalid JSON: parse error at line 4" "$NPUGAP" targets show "$TMP/syntax.json"
: > "$TMP/empty.json"
expect_error "empty file" "$TMP/empty.json: invalid JSON" "$NPUGAP" targets show "$TMP/empty.json"
mutate "$TMP/missing.json" "del p['memory']['device']"
expect_error "missing field" "$TMP/missing.json: field 'memory.device': missing" "$NPUGAP" targets show "$TMP/missing.json"
mutate "$TMP/zero.json" "p['buffers']['ub']['value'] = 0"
expect_error "zero size" "$TMP/zero.json: field 'buffers.ub.value': must be > 0, got 0" "$NPUGAP" targets show "$TMP/zero.json"
mutate "$TMP/negative.json" "p['memory']['device']['value'] = -64"
expect_error "negative size" "field 'memory.device.value': must be > 0, got -64" "$NPUGAP" targets show "$TMP/negative.json"
mutate "$TMP/type.json" "p['compute']['cube_cores']['value'] = '24'"
expect_error "wrong type" "field 'compute.cube_cores.value': expected a number, got a string" "$NPUGAP" targets show "$TMP/type.json"
mutate "$TMP/unit.json" "p['compute']['clock']['unit'] = 'rpm'"
expect_error "bad unit" "field 'compute.clock.unit': 'rpm' is not one of Hz, kHz, MHz, GHz" "$NPUGAP" targets show "$TMP/unit.json"
mutate "$TMP/conf.json" "p['memory']['bandwidth']['confidence'] = 'sure'"
expect_error "bad confidence" "field 'memory.bandwidth.confidence'" "$NPUGAP" targets show "$TMP/conf.json"
expect_error "show --json error is still one line" "unknown target 'nope'" "$NPUGAP" targets show nope --json
expect_error "show without a target" "target is required" "$NPUGAP" targets show
expect_error "unknown targets flag" "--frobnicate" "$NPUGAP" targets --frobnicate

cli_test_end "targets CLI tests"
