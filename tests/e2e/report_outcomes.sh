#!/usr/bin/env bash
# Golden report tests on every outcome sample (samples/outcome-*): the
# decision, the effort ranges and every rendered format, checked against
# samples/<name>/expected-assessment.json; the JSON report validated against
# docs/report.schema.json; and the sensitivity test: resolving the deciding
# findings changes the outcome to what the report said it would be.
#
#   MPSAUDIT_UPDATE_GOLDEN=1 bash report_outcomes.sh BINARY ROOT   rewrites the goldens
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is missing (scripts/setup --test installs it)"

for sample_dir in "$root"/samples/outcome-*/; do
  sample=$(basename "$sample_dir")
  out=$work/$sample
  mkdir -p "$out"
  # One run, five formats, each from its extension.
  (cd "$sample_dir" && "$binary" scan --no-git . --fail-on never -o "$out/r.json" -o "$out/r.md" \
    -o "$out/r.html" -o "$out/r.sarif" -o "$out/r.txt" 2>"$out/stderr") || fail "$sample: scan failed: $(cat "$out/stderr")"
  for ext in json md html sarif txt; do [[ -s $out/r.$ext ]] || fail "$sample: r.$ext is empty"; done

  python3 - "$root" "$sample_dir" "$out" <<'PY' || fail "$sample: golden or schema mismatch"
import json, os, re, sys
import jsonschema
root, sample_dir, out = sys.argv[1:]
report = json.load(open(os.path.join(out, "r.json")))
schema = json.load(open(os.path.join(root, "docs", "report.schema.json")))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(report))
for error in errors[:10]:
    print("schema:", list(error.path), error.message[:300], file=sys.stderr)
assert not errors, f"{len(errors)} schema errors"

a = report["assessment"]
def hours(h): return [h["low"], h["high"]]
golden = {
    "outcome": a["decision"]["outcome"],
    "if_resolved": a["decision"]["if_resolved"],
    "deciding": sorted(f'{f["kind"]} {f.get("rule", "")} {f.get("path", "")}:{f.get("line", "")}' for f in a["decision"]["deciding"]),
    "effort_total": hours(a["effort"]["total"]),
    "effort_text": a["effort"]["total"]["text"],
    "by_category": {r["name"]: hours(r["hours"]) for r in a["effort"]["by_category"]},
    "by_role": {r["name"]: hours(r["hours"]) for r in a["effort"]["by_role"]},
    "by_directory": {r["name"]: hours(r["hours"]) for r in a["effort"]["by_directory"]},
    "plan": [f'{s["order"]}. {s["title"]} [{s["count"]}]' for s in a["action_plan"]],
    "roles": {r["path"]: r["role"] for r in a["roles"]},
    # The scripts the plan runs on the Mac, and every entry point with how
    # it was found: a README's commands find scripts without a __main__ guard.
    "goal": a["effort"]["recommended"]["goal"],
    "entry_points": [f'{e["path"]} {e["purpose"]} {e["scope"]} ({", ".join(e["found_by"])})' for e in a["entry_points"]],
}
path = os.path.join(sample_dir, "expected-assessment.json")
if os.environ.get("MPSAUDIT_UPDATE_GOLDEN"):
    with open(path, "w") as handle:
        json.dump(golden, handle, indent=2, sort_keys=True, ensure_ascii=False)
        handle.write("\n")
expected = json.load(open(path))
for key in sorted(set(expected) | set(golden)):
    if expected.get(key) != golden.get(key):
        print(f"{key}: expected {expected.get(key)!r}\n{' ' * len(key)}  got      {golden.get(key)!r}", file=sys.stderr)
assert expected == golden, "assessment differs from " + path

# The README states the outcome the sample must reach.
readme = open(os.path.join(sample_dir, "README.md")).read()
assert f"**{golden['outcome']}**" in readme, "README does not state " + golden["outcome"]

# Rendered formats carry the same decision and numbers.
# The effort figures lead with the recommended path; the native port follows.
outcome, effort = golden["outcome"], a["effort"]["recommended_hours"]["text"]
md = open(os.path.join(out, "r.md")).read()
assert f"## Decision: **{outcome}**" in md, "markdown decision"
assert f"## Effort: {effort}" in md, "markdown effort"
keep = outcome == "KEEP_LINUX_GPU"
native_label = "**If you port anyway:** " if keep else "**Native port of everything:** "
assert native_label + a["effort"]["native_port_text"].replace("|", "\\|") in md, "markdown native port"
# KEEP_LINUX_GPU: its own steps (pin, guard) lead the plan and the port is
# folded under them, labelled as the cost of porting anyway; no fix credit,
# since nothing of keeping Linux is a code edit. Other outcomes fold nothing.
anyway = [s["if_port_anyway"] for s in a["action_plan"]]
if keep:
    assert anyway[:1] == [False] and True in anyway, anyway
    assert anyway == sorted(anyway), "porting steps after the path's own: %r" % anyway
    assert "anyway, instead of keeping Linux GPUs" in a["effort"]["native_port_text"]
    assert not any("mpsaudit fix --apply removes" in r for r in a["decision"]["reasons"]), "fix credit under KEEP"
    assert "<summary>If you port anyway: " in md, "markdown plan fold"
else:
    assert True not in anyway, "a porting step folded outside KEEP_LINUX_GPU"
    assert "If you port anyway" not in md and "instead of keeping Linux" not in md
assert "## Action plan" in md and "## Acceptance levels" in md and "## Top findings" in md
for change in a["decision"]["what_would_change"]:
    assert change.replace("|", "\\|").replace("<", "&lt;") in md, "markdown lacks: " + change
txt = open(os.path.join(out, "r.txt")).read()
assert f"Decision: {outcome} - " in txt and f"Effort: {effort} " in txt, "text summary"
html = open(os.path.join(out, "r.html")).read()
assert 'id="effort-recommended"' in html and 'id="effort-native-port"' in html, "html effort figures"
assert ('<details id="port-anyway">' in html) == keep, "html plan fold"
assert not keep or "mpsaudit fix --apply removes" not in html, "html fix credit under KEEP"
fix_tile = re.search(r'<div( hidden)?><b id="fix-credit"', html)
assert fix_tile and (fix_tile.group(1) is not None) == (
    keep or a["effort"]["recommended"]["fix"]["safe_findings"] == 0), "html fix tile"
assert f'data-outcome="{outcome}"' in html and "http://" not in html.replace("http://www.w3.org/2000/svg", ""), "html"
assert "<script src" not in html and "<link" not in html, "html must be self-contained"
sarif = json.load(open(os.path.join(out, "r.sarif")))
run = sarif["runs"][0]
assert sarif["version"] == "2.1.0" and run["properties"]["decision"] == outcome
assert len(run["results"]) == len(report["findings"])
PY

  # Sensitivity: resolve the deciding findings (their lines become `pass`)
  # and scan again; the outcome must be what the report predicted.
  read -r if_resolved < <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["assessment"]["decision"]["if_resolved"] or "")' "$out/r.json")
  if [[ -n $if_resolved ]]; then
    cp -r "$sample_dir" "$out/resolved"
    python3 - "$out/r.json" "$out/resolved" <<'PY'
import json, re, sys
report, tree = sys.argv[1:]
deciding = json.load(open(report))["assessment"]["decision"]["deciding"]
lines_by_path = {}
for factor in deciding:
    if "rule" in factor:
        lines_by_path.setdefault(factor["path"], set()).add(factor["line"])
for path, numbers in lines_by_path.items():
    full = f"{tree}/{path}"
    lines = open(full).read().split("\n")
    for number in numbers:
        indent = re.match(r"\s*", lines[number - 1]).group(0)
        lines[number - 1] = indent + "pass  # resolved by the sensitivity test"
    open(full, "w").write("\n".join(lines))
PY
    after=$(cd "$out/resolved" && "$binary" scan --no-git . --format json --fail-on never 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["assessment"]["decision"]["outcome"])')
    [[ $after == "$if_resolved" ]] || fail "$sample: resolving the deciding findings gives $after, the report said $if_resolved"
    echo "$sample: resolving the deciding findings turns it into $after, as the report said"
  fi
  echo "$sample: $(grep -m1 '^Decision:' "$out/r.txt")"
done
# Every other sample: the JSON report, assessment included, fits the schema,
# and the Markdown and text reports state the same decision.
for sample_dir in "$root"/samples/*/; do
  sample=$(basename "$sample_dir")
  [[ $sample == outcome-* ]] && continue
  out=$work/$sample
  mkdir -p "$out"
  status=0
  (cd "$sample_dir" && "$binary" scan --no-git . --fail-on never -o "$out/r.json" -o "$out/r.md" -o "$out/r.txt" \
    2>/dev/null) || status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$sample: scan exited $status"
  python3 - "$root" "$out" <<'PY' || fail "$sample: schema or rendering mismatch"
import json, os, sys
import jsonschema
root, out = sys.argv[1:]
report = json.load(open(os.path.join(out, "r.json")))
schema = json.load(open(os.path.join(root, "docs", "report.schema.json")))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(report))
for error in errors[:10]:
    print("schema:", list(error.path), error.message[:300], file=sys.stderr)
assert not errors
outcome = report["assessment"]["decision"]["outcome"]
assert f"## Decision: **{outcome}**" in open(os.path.join(out, "r.md")).read()
assert f"Decision: {outcome} - " in open(os.path.join(out, "r.txt")).read()
PY
  echo "$sample: report fits the schema ($(grep -m1 -o '^Decision: [A-Z_]*' "$out/r.txt"))"
done
echo "report goldens, schema and sensitivity hold"
