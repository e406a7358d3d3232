#!/usr/bin/env bash
# The HTML report's layout at real sizes: headless Chromium lays out the
# report of a sample and of the first dev-set repository with over 1,000
# findings at 1280x2400 and 1920x2400. A script injected into a copy of each
# report (layout/measure_layout.js) measures the page: no element may be
# wider than the viewport (tables scroll inside their own box) and every
# table cell must be at least 12 characters wide. Screenshots of the whole
# page and of the part from the entry points on (the findings) are kept as
# artifacts in <build>/test-output/report_screenshot/.
#
# The dev-set half reads ../shared/devset/repos beside the source tree
# (MPSAUDIT_DEVSET_DIR overrides it) as input only, and is skipped with a
# message when it is absent.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/browser_common.bash" report_screenshot
devset=${MPSAUDIT_DEVSET_DIR:-$root/../shared/devset}

# scan_html NAME DIR: the HTML and JSON reports of DIR in $work/NAME.*
scan_html() {
  local status=0
  (cd "$2" && "$binary" scan --no-git . --fail-on never -o "$work/$1.html" -o "$work/$1.json" 2>/dev/null) ||
    status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$1: scan exited $status"
}

findings_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$1"; }

# check_layout NAME: screenshots and DOM measurements at both widths.
check_layout() {
  local name=$1 width
  python3 - "$work/$name.html" "$root/tests/e2e/layout/measure_layout.js" "$work/$name.measure.html" <<'PY'
import sys
report, script, out = sys.argv[1:]
html = open(report, encoding="utf-8").read()
assert html.count("</body>") == 1, "the report has no single </body>"
open(out, "w", encoding="utf-8").write(html.replace("</body>", "<script>" + open(script).read() + "</script></body>"))
# A copy that starts at the entry points, so that a screenshot shows the
# findings tables of a long report too.
body = html.index("<body>") + len("<body>")
findings = out.replace(".measure.html", ".findings.html")
start = html.find("<h2>Entry points</h2>")
start = start if start >= 0 else html.index("<h2>Findings")
open(findings, "w", encoding="utf-8").write(html[:body] + html[start:])
PY
  # Two Chromium starts a width, at once: the page with the measuring script
  # (its screenshot and its DOM), and the findings.
  for width in 1280 1920; do
    render_page "$work/$name.measure.html" "$width" "$shots/$name-$width.png" "$work/$name-$width.dom" &
    local page=$!
    render_page "$work/$name.findings.html" "$width" "$shots/$name-findings-$width.png" ||
      fail "$name: chromium could not take a screenshot of the findings at $width px"
    wait "$page" || fail "$name: chromium could not load or screenshot the report at $width px"
    python3 - "$work/$name-$width.dom" "$name" "$width" <<'PY' || fail "$name: layout breaks at $width px"
import html, json, re, sys
dom, name, width = sys.argv[1:]
found = re.search(r'<pre id="layout-check"[^>]*>(.*?)</pre>', open(dom, encoding="utf-8").read(), re.S)
assert found, "the measuring script did not run"
result = json.loads(html.unescape(found.group(1)))
assert result["viewport"] == int(width), result["viewport"]
assert result["cells"] > 0, "no table cell was laid out"
for problem in result["problems"]:
    print("  " + problem, file=sys.stderr)
assert result["problem_count"] == 0, f'{result["problem_count"]} layout problems'
print(f'{name} at {width} px: {result["elements"]} elements within the viewport, {result["cells"]} cells at least 12 characters wide')
PY
  done
}

scan_html sample "$root/samples/outcome-dual"
check_layout sample

# The dev-set half: the first repository with over 1,000 findings.
if [[ ! -d $devset/repos ]]; then
  echo "SKIP dev-set half: $devset/repos is absent"
else
  large=""
  # Kernel libraries first (the most .cu/.cuh files): they have the most findings.
for repo in $(for dir in "$devset"/repos/*/; do
  echo "$(find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' \) | wc -l) $dir"
done | sort -rn | cut -d' ' -f2-); do
    scan_html devset "$repo"
    if (($(findings_of "$work/devset.json") > 1000)); then large=$repo; break; fi
  done
  [[ -n $large ]] || fail "no dev-set repository has over 1,000 findings"
  echo "dev-set repository with $(findings_of "$work/devset.json") findings"
  check_layout devset
fi
echo "screenshots in $shots"
