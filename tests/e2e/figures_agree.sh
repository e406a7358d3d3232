#!/usr/bin/env bash
# One figure, one rounding: for every sample, the decision's headline, the
# recommended path's effort and the native port read the same, to the
# character, in the JSON report and in every format that shows them: text,
# summary, Markdown, HTML, SARIF and GitHub. The texts come from the
# assessment once (format_hours); a writer that rounded or worded a figure
# on its own would differ here.
# Usage: figures_agree.sh <mpsaudit binary> <repository root>
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset MPSAUDIT_RULES_DIR

checked=0
for sample in "$root"/samples/*/; do
  out=$work/$(basename "$sample")
  mkdir -p "$out"
  "$binary" scan --no-git --no-cache --color never --format github -o - -o "$out/r.txt" -o "$out/r.md" \
    -o "$out/r.html" -o "$out/r.json" -o "$out/r.sarif" "$sample" >"$out/github" 2>/dev/null || true
  "$binary" scan --no-git --no-cache --format summary "$sample" >"$out/summary" 2>/dev/null || true
  checked=$((checked + 1))
done
[[ $checked -gt 10 ]] || { echo "FAIL: only $checked samples"; exit 1; }

python3 - "$work" <<'PY'
import html, json, os, re, sys
work = sys.argv[1]
failures = []
checked = 0
for name in sorted(os.listdir(work)):
    out = os.path.join(work, name)
    def read(file):
        return open(os.path.join(out, file), encoding="utf-8").read()
    report = json.loads(read("r.json"))
    a = report.get("assessment")
    if not a:
        continue
    effort, decision = a["effort"], a["decision"]
    outcome = decision["outcome"]
    recommended = effort["recommended_hours"]["text"]
    goal = effort["recommended"]["goal"]
    native = effort["native_port_hours"]["text"]
    headline = decision["headline"]
    reason = headline.split(": ", 1)[1]
    text, summary, md = read("r.txt"), read("summary"), read("r.md")
    page, github = html.unescape(read("r.html")), read("github")
    sarif = json.loads(read("r.sarif"))["runs"][0]["properties"]
    expect = {
        "text decision": f"Decision: {outcome} - {reason}\n" in text,
        "text effort": f"\nEffort: {recommended} to {goal} ({outcome});" in text,
        "summary decision": summary.startswith(f"Decision: {outcome} - {reason}\n"),
        "summary effort": f"\nEffort: {recommended} to {goal} ({outcome});" in summary,
        "markdown headline": f"\n{headline}\n" in md.replace("\\|", "|"),
        "markdown effort": f"## Effort: {recommended}\n" in md,
        "markdown native port": f" {effort['native_port_text']}" in md.replace("\\|", "|"),
        "html headline": f"<strong>{headline}</strong>" in page,
        "html effort": re.search(r'id="effort-recommended"[^>]*>' + re.escape(recommended) + "</b>to " + re.escape(goal), page),
        "html native port": re.search(r'id="effort-native-port"[^>]*>' + re.escape(native) + "</b>", page),
        "sarif headline": sarif["headline"] == headline,
        "sarif effort": sarif["recommendedHours"]["text"] == recommended and sarif["recommendedGoal"] == goal,
        "sarif native port": sarif["nativePortHours"]["text"] == native,
        "github effort": f"Decision: {outcome}, {recommended} to {goal}" in github,
    }
    # The native-port line, where the text report prints one, is the JSON's.
    if native != recommended:
        expect["text native port"] = f"\nNative port: {effort['native_port_text']}\n" in text
        expect["summary native port"] = f"\nNative port: {effort['native_port_text']}\n" in summary
    failures += [f"{name}: {what}" for what, holds in expect.items() if not holds]
    checked += 1
if checked < 10:
    failures.append(f"only {checked} samples have an assessment")
if failures:
    sys.exit("FAIL: figures disagree:\n  " + "\n  ".join(failures))
print(f"{checked} samples: decision, effort and native port read the same in every format")
PY
