#!/usr/bin/env bash
# Opens the HTML report of `npugap analyze` in headless Chromium (Debian `chromium`): takes a
# screenshot, kept as a test artifact in OUT_DIR, and checks in the rendered DOM that every section
# rendered (element ids, verdict badges) and that every chart has non-empty SVG paths.
set -uo pipefail
NPUGAP=${1:?usage: analyze_html_test.sh NPUGAP_BINARY OUT_DIR}
OUT=${2:?usage: analyze_html_test.sh NPUGAP_BINARY OUT_DIR}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
  echo "analyze_html_test: chromium not installed (scripts/setup.sh installs it)"
  exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

"$NPUGAP" example simplenet -o "$TMP/simplenet.onnx" > /dev/null
"$NPUGAP" analyze "$TMP/simplenet.onnx" --target ascend910b2 --dev-target cpu-dev --train \
  --cluster atlas800t-a2 --ranks 64 --html "$OUT/report.html" > "$OUT/summary.txt"
check "analyze wrote the HTML" test -s "$OUT/report.html"

chrome() {
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d -p "$TMP")" --window-size=1280,4000 "$@" "file://$OUT/report.html"
}
rm -f "$OUT/report.png"
chrome --screenshot="$OUT/report.png" > "$TMP/shot.log" 2>&1
check "screenshot taken" bash -c "[ -s '$OUT/report.png' ] && head -c 8 '$OUT/report.png' | grep -q PNG"
chrome --dump-dom > "$OUT/dom.html" 2> "$TMP/dom.log"
check "DOM dumped" test -s "$OUT/dom.html"

# The rendered DOM: every section and its verdict badge, every chart with drawn paths.
/usr/bin/python3 - "$OUT/dom.html" > "$TMP/dom_check.txt" << 'PY'
import sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()
        self.charts = {}  # chart id -> number of non-empty paths
        self.current = None
        self.scripts = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and "chart" in a.get("class", ""):
            self.current = a.get("id")
            self.charts[self.current] = 0
        if tag == "path" and self.current and a.get("d", "").strip():
            self.charts[self.current] += 1
    def handle_endtag(self, tag):
        if tag == "svg":
            self.current = None

d = Dom()
d.feed(open(sys.argv[1], encoding="utf-8").read())
for key in ["compat", "precision", "memory", "perf", "comm"]:
    print("id", "section-" + key, "section-" + key in d.ids)
    print("id", "verdict-" + key, "verdict-" + key in d.ids)
print("id", "section-recommendations", "section-recommendations" in d.ids)
for want in ["chart-compat-placement", "chart-precision-cosine", "chart-precision-error", "chart-memory-timeline",
             "chart-perf-breakdown", "chart-perf-kernels", "chart-comm-allreduce", "chart-comm-efficiency"]:
    print("chart", want, d.charts.get(want, 0) > 0)
print("all-charts-drawn", "x", all(n > 0 for n in d.charts.values()) and len(d.charts) >= 8)
print("no-scripts", "x", d.scripts == 0)
PY
while read -r kind name ok; do
  check "$kind $name" test "$ok" = True
done < "$TMP/dom_check.txt"
check "DOM checks ran" test "$(wc -l < "$TMP/dom_check.txt")" -ge 19

cli_test_end "analyze_html_test" " (screenshot: $OUT/report.png)"
