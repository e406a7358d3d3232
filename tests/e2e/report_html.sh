#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium loads each sample's
# report, and the DOM's counts, rows, decision and effort must match the JSON
# report of the same scan. Screenshots go to <build>/test-output/report_html/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/browser_common.bash" report_html

samples=()
for sample_dir in "$root"/samples/*/; do
  sample=$(basename "$sample_dir")
  samples+=("$sample")
  # Exit 3 (some inputs could not be scanned) still writes the reports.
  status=0
  (cd "$sample_dir" && "$binary" scan --no-git . --fail-on never -o "$work/$sample.html" -o "$work/$sample.json" \
    2>/dev/null) || status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$sample: scan exited $status"
done

# One Chromium start per report, four at a time: a screenshot, and the DOM
# after scripts ran (--dump-dom: the filter script must not have hidden or
# lost rows).
export -f render_page
export browser work shots
printf '%s\n' "${samples[@]}" |
  xargs -P 4 -I{} bash -c 'render_page "$work/$1.html" 1280 "$shots/$1.png" "$work/$1.dom" || echo "$1" >>"$work/unrendered"' _ {}
[[ ! -s $work/unrendered ]] || fail "chromium could not load or screenshot: $(tr '\n' ' ' <"$work/unrendered")"

for sample in "${samples[@]}"; do
  python3 - "$work/$sample.dom" "$work/$sample.json" "$sample" <<'PY' || fail "$sample: the DOM does not match the JSON report"
import json, sys
from html.parser import HTMLParser
dom_path, json_path, sample = sys.argv[1:]
report = json.load(open(json_path))

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.by_id, self.rows, self.hidden_rows, self.scripts_external = {}, [], 0, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.by_id[a["id"]] = a
        if tag == "tr" and "finding" in (a.get("class") or "").split():
            self.rows.append(a)
            if "display: none" in (a.get("style") or ""):
                self.hidden_rows += 1
        if tag in ("script", "img", "link", "iframe") and (a.get("src") or a.get("href")):
            self.scripts_external += 1

dom = Dom()
dom.feed(open(dom_path, encoding="utf-8").read())
summary = report["summary"]
def count(element_id): return int(dom.by_id[element_id]["data-count"])
assert count("count-findings") == summary["findings"], (count("count-findings"), summary["findings"])
for severity in ("error", "warning", "info"):
    assert count("count-" + severity) == summary["by_severity"][severity], severity
assert count("count-suppressed") == summary["suppressed"]
assert count("count-files") == summary["files"]
assert len(dom.rows) == summary["findings"], (len(dom.rows), summary["findings"])
assert dom.hidden_rows == 0, "rows hidden before any filter"
rules = sorted(r["data-rule"] for r in dom.rows)
assert rules == sorted(f["rule"] for f in report["findings"] if not f["suppressed"])
a = report["assessment"]
assert dom.by_id["decision"]["data-outcome"] == a["decision"]["outcome"]
effort = dom.by_id["effort-total"]
assert abs(float(effort["data-low"]) - a["effort"]["total"]["low"]) < 0.01
assert abs(float(effort["data-high"]) - a["effort"]["total"]["high"]) < 0.01
credit = dom.by_id["fix-credit"]  # what `mpsaudit fix` removes of the recommended path, as in the JSON
assert abs(float(credit["data-high"]) - a["effort"]["recommended"]["fix"]["safe_hours"]["high"]) < 0.01
assert int(credit["data-findings"]) == a["effort"]["recommended"]["fix"]["safe_findings"]
for chart in ("chart-category", "chart-directory", "chart-severity", "chart-role"):
    assert chart in dom.by_id, chart
assert dom.by_id["probe"]["data-ran"] == ("true" if a["probe"]["ran"] else "false")
assert dom.scripts_external == 0, "the report loads external resources"
print(f"{sample}: DOM matches the JSON ({summary['findings']} findings, {a['decision']['outcome']})")
PY
done
echo "screenshots in $shots"
