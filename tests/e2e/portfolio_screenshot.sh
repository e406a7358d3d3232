#!/usr/bin/env bash
# The HTML portfolio's layout at real sizes: headless Chromium lays out the
# portfolio of the dev set (of five samples when the dev set is absent) at
# 1280 and 1920 px. The measuring script of the report's layout test
# (layout/measure_layout.js) must find no element wider than the viewport,
# and the repositories' table must fit the window without scrolling: a lab
# lead reads every column at once. The 12-character floor of that script is
# for findings tables; the portfolio's number columns are narrower by
# design, so only the width problems count here. Screenshots are kept in
# <build>/test-output/portfolio_screenshot/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/browser_common.bash" portfolio_screenshot
devset=${MPSAUDIT_DEVSET_DIR:-$root/../shared/devset}

if [[ -d $devset/repos ]]; then
  inputs=("$devset"/repos/*/)
else
  inputs=("$root"/samples/{outcome-adapt,outcome-dual,outcome-keep-linux,mps-operator-gaps,memory-fit})
fi
"$binary" portfolio --no-git --cache-dir "$work/cache" -j 2 -o "$work/portfolio.html" "${inputs[@]}" ||
  fail "portfolio exited $?"

python3 - "$work/portfolio.html" "$root/tests/e2e/layout/measure_layout.js" "$work/measure.html" <<'PY'
import sys
page, script, out = sys.argv[1:]
html = open(page, encoding="utf-8").read()
assert html.count("</body>") == 1, "the page has no single </body>"
table_check = """<script>(function(){var t=document.getElementById('portfolio-table');
var p=document.createElement('pre');p.id='table-check';p.hidden=true;
p.textContent=JSON.stringify({right:t.getBoundingClientRect().right,viewport:document.documentElement.clientWidth});
document.body.appendChild(p);})();</script>"""
open(out, "w", encoding="utf-8").write(
    html.replace("</body>", "<script>" + open(script).read() + "</script>" + table_check + "</body>"))
PY
for width in 1280 1920; do
  render_page "$work/measure.html" "$width" "$shots/portfolio-$width.png" "$work/$width.dom" ||
    fail "chromium could not load or screenshot the portfolio at $width px"
  python3 - "$work/$width.dom" "$width" <<'PY' || fail "the portfolio's layout breaks at $width px"
import html, json, re, sys
dom, width = sys.argv[1:]
text = open(dom, encoding="utf-8").read()
found = re.search(r'<pre id="layout-check"[^>]*>(.*?)</pre>', text, re.S)
table = re.search(r'<pre id="table-check"[^>]*>(.*?)</pre>', text, re.S)
assert found and table, "the measuring scripts did not run"
result = json.loads(html.unescape(found.group(1)))
assert result["viewport"] == int(width), result["viewport"]
wide = [problem for problem in result["problems"] if not problem.startswith("cell narrower than 12")]
for problem in wide:
    print("  " + problem, file=sys.stderr)
assert not wide, f"{len(wide)} elements wider than the viewport"
fit = json.loads(html.unescape(table.group(1)))
assert fit["right"] <= fit["viewport"] + 0.5, f'the table needs {fit["right"]:.0f} px of {fit["viewport"]}'
print(f'portfolio at {width} px: {result["elements"]} elements and the table within the viewport')
PY
done
echo "screenshots in $shots"
