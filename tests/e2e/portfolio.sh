#!/usr/bin/env bash
# `mpsaudit portfolio` (docs/portfolio.md) on samples and on the dev set:
# - every row has the verdict and effort of the repository's own `scan`;
# - the JSON over the trees equals the JSON over their JSON reports (written
#   by the portfolio, and by `scan` from another directory), but for when and
#   from what each row was made;
# - a path that is no repository, a file that is no JSON, another tool's
#   JSON and an empty folder are rows with their errors, exit 3, and the
#   other rows stay;
# - @FILE lists, --baseline, CSV quoting (a repository named like a
#   formula), Markdown, and an HTML page that loads nothing and links each
#   repository's own report.
# The dev-set half reads ../shared/devset/repos beside the source tree
# (MPSAUDIT_DEVSET_DIR overrides it) and is skipped when it is absent.
set -euo pipefail
binary=$1 root=$2
python3 -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema is missing (scripts/setup --test installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
devset=${MPSAUDIT_DEVSET_DIR:-$root/../shared/devset}

# compare_rows PORTFOLIO.json SCAN_DIR: each row's verdict, effort and native
# port are those of the JSON report of its own scan in SCAN_DIR/<name>.json.
compare_rows() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
portfolio, scans = sys.argv[1:]
rows = json.load(open(portfolio))["repositories"]
assert rows, "no rows"
for row in rows:
    assert row["error"] is None, f'{row["name"]}: {row["error"]}'
    report = json.load(open(os.path.join(scans, row["name"] + ".json")))
    assessment = report["assessment"]
    assert row["verdict"] == assessment["decision"]["outcome"], (row["name"], row["verdict"])
    recommended = assessment["effort"]["recommended_hours"]
    assert (row["effort"]["low"], row["effort"]["high"]) == (recommended["low"], recommended["high"]), row["name"]
    if row["verdict"] != "ADAPT":
        native = assessment["effort"]["native_port_hours"]
        assert (row["native_port"]["low"], row["native_port"]["high"]) == (native["low"], native["high"]), row["name"]
print(f"{len(rows)} rows agree with their own scans")
PY
}

# valid PORTFOLIO.json...: each document is valid against docs/portfolio.schema.json.
valid() {
  python3 - "$root/docs/portfolio.schema.json" "$@" <<'PY' || fail "a portfolio does not follow its schema"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema)
PY
}

# same_portfolio A.json B.json: equal but for when and from what each row was made.
same_portfolio() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def rows(path):
    document = json.load(open(path))
    for row in document["repositories"]:
        for key in ("input", "source", "scanned_at", "html_report"):
            row.pop(key)
    return document
a, b = (rows(path) for path in sys.argv[1:])
for x, y in zip(a["repositories"], b["repositories"]):
    assert x == y, f'{x["name"]}: ' + ", ".join(k for k in x if x[k] != y.get(k))
assert a == b, "the totals differ"
print(f'{len(a["repositories"])} rows equal over trees and over reports')
PY
}

# --- samples ---
samples=(outcome-adapt outcome-dual outcome-keep-linux mps-operator-gaps memory-fit)
trees=()
mkdir -p "$work/alone"
for sample in "${samples[@]}"; do
  trees+=("$root/samples/$sample")
  (cd "$root/samples/$sample" && "$binary" scan . --no-git --no-cache --fail-on never -f json -o "$work/alone/$sample.json" 2>/dev/null)
done
"$binary" portfolio --no-git --cache-dir "$work/cache" --reports-dir "$work/reports" -j 2 -o "$work/trees.json" \
  -o "$work/portfolio.csv" -o "$work/portfolio.md" -o "$work/portfolio.html" -o "$work/portfolio.txt" "${trees[@]}" ||
  fail "portfolio over samples exited $?"
compare_rows "$work/trees.json" "$work/alone"
"$binary" portfolio "$work"/reports/*.json -o "$work/reports.json" || fail "portfolio over reports exited $?"
# The reports' order is their file names'; the trees' is the order given.
python3 - "$work/trees.json" "$work/sorted-trees.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
document["repositories"].sort(key=lambda row: row["name"])
json.dump(document, open(sys.argv[2], "w"))
PY
same_portfolio "$work/sorted-trees.json" "$work/reports.json"

# A report written by `scan` from another directory reads the same.
(cd "$root" && "$binary" scan --no-git --no-cache --fail-on never samples/outcome-dual -f json -o "$work/outside.json" 2>/dev/null)
"$binary" portfolio "$work/outside.json" -f json >"$work/outside-portfolio.json"
"$binary" portfolio "$work/reports/outcome-dual.json" -f json >"$work/inside-portfolio.json"
same_portfolio "$work/inside-portfolio.json" "$work/outside-portfolio.json"
grep -q '"reason": "`deepspeed` (MPS408) in train.py:4' "$work/outside-portfolio.json" ||
  fail "a report scanned from elsewhere keeps its root in the reason"

# The text table lists every sample, the totals and the reasons.
for sample in "${samples[@]}"; do
  grep -q "^$sample " "$work/portfolio.txt" || fail "the text table has no row for $sample"
done
grep -q '^mpsaudit portfolio: 5 repositories (' "$work/portfolio.txt" || fail "no headline"
grep -q '^By verdict' "$work/portfolio.txt" || fail "no totals"

# --- inputs that fail are rows, and the rest stay ---
echo 'not json' >"$work/broken.json"
echo '{"tool": {"name": "other"}}' >"$work/other.json"
mkdir -p "$work/empty"
status=0
"$binary" portfolio "$work/reports/outcome-adapt.json" "$work/broken.json" "$work/other.json" "$work/missing" \
  "$work/empty" -f json >"$work/errors.json" 2>"$work/errors.err" || status=$?
[[ $status -eq 3 ]] || fail "failed inputs: exit $status, not 3"
python3 - "$work/errors.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["repositories"]
assert [row["error"] is None for row in rows] == [True, False, False, False, False], rows
assert "is not valid JSON" in rows[1]["error"], rows[1]
assert rows[2]["error"].startswith("not an mpsaudit JSON report"), rows[2]
assert rows[3]["error"] == "no such repository or report", rows[3]
assert rows[4]["error"].startswith("the report has no verdict: nothing to scan"), rows[4]
assert rows[4]["notes"] == [], rows[4]
assert rows[0]["verdict"] == "ADAPT"
PY
valid "$work/trees.json" "$work/errors.json"
grep -q "broken.json: .* is not valid JSON" "$work/errors.err" || fail "no diagnostic names the broken report"

# --- progress: "N/M repositories" on standard error when asked, never in a pipe by default ---
"$binary" portfolio --progress always "$work"/reports/*.json -o /dev/null 2>"$work/progress.err"
grep -q '5/5 repositories' "$work/progress.err" || fail "no progress line with --progress always"
"$binary" portfolio "$work"/reports/*.json -o /dev/null 2>"$work/quiet.err"
[[ ! -s $work/quiet.err ]] || fail "a progress line or message in a pipe: $(cat "$work/quiet.err")"

# --- @FILE ---
printf '# the lab\n%s\n\n%s\n' "$work/reports/outcome-adapt.json" "$work/reports/outcome-dual.json" >"$work/list.txt"
"$binary" portfolio "@$work/list.txt" -f json >"$work/listed.json"
"$binary" portfolio "$work/reports/outcome-adapt.json" "$work/reports/outcome-dual.json" -f json >"$work/direct.json"
same_portfolio "$work/listed.json" "$work/direct.json"

# --- --baseline ---
"$binary" portfolio "$work"/reports/*.json --baseline "$work/reports.json" >"$work/same.txt"
grep -q '^  nothing changed$' "$work/same.txt" || fail "an unchanged portfolio reports changes"
python3 - "$work/reports.json" "$work/old.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
for row in document["repositories"]:
    if row["name"] == "outcome-adapt":
        row["verdict"] = "KEEP_LINUX_GPU"
document["repositories"].append({"name": "retired-project", "verdict": "ADAPT"})
json.dump(document, open(sys.argv[2], "w"))
PY
"$binary" portfolio "$work"/reports/*.json --baseline "$work/old.json" >"$work/changed.txt"
"$binary" portfolio "$work"/reports/*.json --baseline "$work/old.json" -f json >"$work/changed.json"
valid "$work/changed.json"
grep -q '^  outcome-adapt: verdict KEEP_LINUX_GPU -> ADAPT$' "$work/changed.txt" || fail "a changed verdict is not marked"
grep -q '^  retired-project: no longer in the portfolio$' "$work/changed.txt" || fail "a repository gone is not marked"

# --- CSV: one row per repository, and a name a spreadsheet would run is text ---
mkdir -p "$work/=HYPERLINK(1)"
printf 'import torch\nx = torch.zeros(3).cuda()\n' >"$work/=HYPERLINK(1)/train.py"
"$binary" portfolio --no-git --no-cache "$work/=HYPERLINK(1)" "$work/reports/outcome-adapt.json" -o "$work/formula.csv"
python3 - "$work/portfolio.csv" "$work/formula.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 5 and all(row["verdict"] for row in rows), rows
assert all(float(row["effort_low_hours"]) <= float(row["effort_high_hours"]) for row in rows)
formula = list(csv.DictReader(open(sys.argv[2], newline="")))
assert formula[0]["name"] == "'=HYPERLINK(1)", formula[0]["name"]
PY

# --- Markdown and HTML ---
grep -q '^| repository | verdict | why |' "$work/portfolio.md" || fail "no Markdown table"
python3 - "$work/portfolio.html" "$work" <<'PY'
import os, re, sys
page, work = sys.argv[1:]
html = open(page, encoding="utf-8").read()
assert "Content-Security-Policy" in html and "default-src 'none'" in html, "no CSP"
assert not re.search(r'(src|href)="(https?:)?//', html), "the page loads something"
rows = re.findall(r'<tr data-name="([^"]+)" data-verdict="([A-Z_]+)"', html)
assert len(rows) == 5, rows
links = re.findall(r'<a href="([^"]+)">', html)
assert len(links) == 5, links
for link in links:
    assert not link.startswith("/"), link
    assert os.path.isfile(os.path.join(work, link)), link
assert html.count('<g class="bar"') == 5
PY

# --- git work trees: the commit, and `scan` of two repositories points here ---
for name in lab-a lab-b; do
  mkdir -p "$work/git/$name"
  printf 'import torch\nx = torch.zeros(3).cuda()\n' >"$work/git/$name/train.py"
  git -C "$work/git/$name" init -q
  git -C "$work/git/$name" add train.py
  GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$work/git/$name" -c user.name=Lab \
    -c user.email=lab@example.org commit -q -m first
done
"$binary" portfolio --no-cache "$work/git/lab-a" "$work/git/lab-b" -f json >"$work/git.json"
python3 - "$work/git.json" "$(git -C "$work/git/lab-a" rev-parse HEAD)" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["repositories"]
assert rows[0]["name"] == "lab-a" and rows[0]["commit"] == sys.argv[2], rows[0]
PY
(cd "$work/git" && "$binary" scan --no-cache lab-a lab-b 2>"$work/two.err" >/dev/null) || true
grep -q 'note: 2 of these roots are separate git repositories.*`mpsaudit portfolio lab-a lab-b`' "$work/two.err" ||
  fail "scan of two repositories does not point to portfolio"
(cd "$work/git" && "$binary" scan --no-cache lab-a lab-a/ 2>"$work/one.err" >/dev/null) || true
! grep -q 'separate git' "$work/one.err" || fail "one repository named twice is called separate repositories"

# --- the dev set: each repository as its own scan judges it ---
if [[ ! -d $devset/repos ]]; then
  echo "SKIP dev-set half: $devset/repos is absent"
else
  "$binary" portfolio --no-git --cache-dir "$work/cache" --reports-dir "$work/devset-reports" -j 2 \
    -o "$work/devset.json" "$devset"/repos/*/ >/dev/null || fail "portfolio over the dev set exited $?"
  mkdir -p "$work/devset-alone"
  for repo in "$devset"/repos/*/; do
    name=$(basename "$repo")
    (cd "$repo" && "$binary" scan . --no-git --cache-dir "$work/cache" --fail-on never -f json \
      -o "$work/devset-alone/$name.json" 2>/dev/null) || true
  done
  compare_rows "$work/devset.json" "$work/devset-alone"
  valid "$work/devset.json"
  "$binary" portfolio "$work"/devset-reports/*.json -o "$work/devset-reports.json"
  same_portfolio "$work/devset.json" "$work/devset-reports.json"
fi
echo "portfolio: rows, totals and formats agree"
