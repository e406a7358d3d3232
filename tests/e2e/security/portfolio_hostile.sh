#!/usr/bin/env bash
# Attack: `mpsaudit portfolio` shows text from many untrusted places at once:
# repository folder names, and JSON reports handed over from CI jobs whose
# names, reasons and blocker titles anyone could have written. A name such
# as `=HYPERLINK(...)` runs as a formula when the CSV is opened in a
# spreadsheet; `<script>` or `<!--` in the HTML or Markdown page acts or
# hides the rest; an escape sequence repaints the terminal.
# Promise (docs/security.md, "The lab portfolio"): every text from a tree or a
# report is escaped for the format it lands in (terminal_safe for text and
# standard error, html_escape, markdown_text, a leading quote before a CSV
# formula), and a report that is no mpsaudit report is a row with an error.
set -euo pipefail
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A repository whose folder name is hostile.
tree="$work/lab<!--|*[x](y)"$'\e'"[2J"
mkdir -p "$tree"
printf 'import torch\nx = torch.zeros(3).cuda()\n' >"$tree/train.py"

# A report as a CI job could hand over: well-formed, every text hostile.
python3 - "$work/evil.json" <<'PY'
import json, sys
evil = "=HYPERLINK(\"http://x\")<script>alert(1)</script><img src=x onerror=alert(1)><!--|](javascript:alert(1))\x1b[31m\r\n- injected"
report = {
    "schema_version": 1, "tool": {"name": "mpsaudit", "version": "0.1.0" + evil}, "root": ".",
    "repository": {"name": evil, "commit": "`|<b>"},
    "summary": {"files": 1, "findings": 1}, "findings": [],
    "assessment": {
        "decision": {"outcome": "DUAL", "headline": "DUAL: " + evil,
                     "groups": [{"cause": "package:" + evil, "title": evil, "count": 1, "pushes_to": "DUAL"}]},
        "effort": {"recommended_hours": {"low": 1, "high": 2}, "native_port_hours": {"low": 3, "high": 4},
                   "recommended": {"fix": {"safe_hours": {"low": 0, "high": 0}}}, "items": []},
        "entry_points": [{"mac": evil}]}}
json.dump(report, open(sys.argv[1], "w"))
PY

status=0
"$binary" portfolio --no-git --no-cache "$tree" "$work/evil.json" -o "$work/p.html" -o "$work/p.md" \
  -o "$work/p.csv" -o "$work/p.txt" -o "$work/p.json" 2>"$work/err" || status=$?
[[ $status -eq 0 ]] || fail "portfolio exited $status"
"$binary" portfolio --no-git --no-cache "$tree" "$work/evil.json" >"$work/stdout.txt" 2>>"$work/err"

python3 - "$work" <<'PY'
import csv, json, os, re, sys
work = sys.argv[1]
read = lambda name: open(os.path.join(work, name), encoding="utf-8", errors="replace").read()
for name in ("p.txt", "stdout.txt", "err", "p.md", "p.html"):
    text = read(name)
    assert "\x1b" not in text, f"{name}: an escape sequence reached the output"
    assert "\r" not in text, f"{name}: a carriage return"
html = read("p.html")
assert html.count("<script>") == 1, "a <script> from a report reached the HTML page"
assert "<img" not in html and "<!--" not in html, "markup from a report reached the HTML page"
assert "`|&lt;b" in html, "the commit is not shown escaped"
md = read("p.md")
for bad in ("<!--", "<script", "<img", "<b>", "](javascript"):
    assert bad not in md, f"the Markdown portfolio holds {bad!r}"
lines = md.splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith("| repository |"))
table = lines[start:lines.index("", start)]
cells = lambda line: len(re.findall(r"(?<!\\)\|", line))
assert len(table) == 4, table  # header, rule, two rows
for line in table:
    assert cells(line) == cells(table[0]), f"a name broke the Markdown table: {line}"
assert not any(line.startswith("- injected") for line in lines), "a reason started a Markdown block of its own"
rows = list(csv.DictReader(open(os.path.join(work, "p.csv"), newline="", encoding="utf-8")))
assert len(rows) == 2, rows
for row in rows:
    for key, value in row.items():
        assert not value or value[0] not in "=+-@\t\r", f"CSV {key} starts a formula: {value[:20]!r}"
document = json.load(open(os.path.join(work, "p.json")))
assert document["repositories"][0]["error"] is None, document["repositories"][0]
assert document["repositories"][1]["verdict"] == "DUAL", document["repositories"][1]
print("every format keeps the hostile names and reasons as text")
PY
