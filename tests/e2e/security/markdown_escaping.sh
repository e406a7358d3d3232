#!/usr/bin/env bash
# Attack: the Markdown report's decision headline quoted file and pickle
# names raw, while the Why list escaped the same names. Posted as a pull-request
# comment or a job summary, a checkpoint named `<!--x.pt` hid the rest of the
# report, and `<script>` or `<img>` reached the page.
# Promise (docs/security.md, "Markdown and GitHub reports"): every text from
# the tree goes through one escaping function in every section of the Markdown
# report (title, headline, reasons, tables, plan, config line): no raw `<!--`,
# `<script`, `<img`, link or image, and no name breaks a table. GitHub
# annotations stay one line each.
set -euo pipefail
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The scanned root's own name is hostile too: it is the report's title.
tree="$work/r<!--|*[x](y)"
mkdir -p "$tree"
python3 - "$tree" <<'PY'
import os, sys, zipfile
tree = sys.argv[1]
def checkpoint(name, module, callable_name):
    """A torch zip checkpoint whose pickle calls module.callable_name (never unpickled here)."""
    body = (b"\x80\x02c" + module.encode() + b"\n" + callable_name.encode() + b"\nq\x00"
            b"X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.")
    with zipfile.ZipFile(os.path.join(tree, name), "w") as archive:
        archive.writestr("archive/data.pkl", body)
        archive.writestr("archive/version", "3\n")
checkpoint("<!--x.pt", "<!--evil|a`b", "<script>x[y](z)")
checkpoint("<script>w|.pt", "posix", "system")
code = 'import torch\nif __name__ == "__main__":\n    torch.cuda.synchronize()\n'
for name in ["tr<!--ain.py", "<script>run.py", "pi|pe.py", "a\\|b.py", "back`tick``s.py", "st*ar*.py",
             "[x](y).py", "![i](http:x).py", "cr\rname.py", "nl\nname.py", "<img src=x onerror=alert(1)>.py"]:
    with open(os.path.join(tree, name), "w") as out:
        out.write(code)
# A config found in the tree: the reports name it, under the hostile root.
with open(os.path.join(tree, "mpsaudit.toml"), "w") as out:
    out.write('target-torch = "2.6"\n')
PY

status=0
timeout 60 "$binary" scan --no-git --no-cache --full --format md "$tree" >"$work/report.md" 2>"$work/stderr" ||
  status=$?
[[ $status -eq 1 ]] || fail "the Markdown scan exited $status, want 1: $(cat "$work/stderr")"
status=0
timeout 60 "$binary" scan --no-git --no-cache --format github "$tree" >"$work/report.github" 2>>"$work/stderr" ||
  status=$?
[[ $status -eq 1 ]] || fail "the GitHub scan exited $status, want 1: $(cat "$work/stderr")"

python3 - "$work/report.md" "$work/report.github" <<'PY' || fail "the reports are not safe (above)"
import re, string, sys
md = open(sys.argv[1], encoding="utf-8").read()
github = open(sys.argv[2], encoding="utf-8").read()
problems = []

# The tree's names reached every section the attack needs: the title, the
# headline, the Why list, the findings table, the entry points, the config line.
for needle in ["# mpsaudit: can ", "KEEP_LINUX_GPU: ", "### Why", "## Top findings", "## Entry points",
               "x.pt", "run.py", "pi\\|pe.py", "Config: "]:
    if needle not in md:
        problems.append(f"the report lacks {needle!r}")

# No raw HTML from the tree: comments, scripts, images, any tag it names.
for raw in ["<!--", "<script", "<img", "</script"]:
    if raw in md.lower():
        line = next(l for l in md.splitlines() if raw in l.lower())
        problems.append(f"raw {raw!r} in the Markdown report: {line[:200]!r}")

# No link or image: an unescaped `](` is how both begin.
for number, line in enumerate(md.splitlines(), 1):
    if re.search(r"(?<!\\)\]\(", line):
        problems.append(f"line {number} has a link or image: {line[:200]!r}")

def cells(row):
    """The cells of a GFM table row: pipes split it, except one escaped by a
    backslash; a backslash escapes any ASCII punctuation (cmark-gfm's scanner)."""
    count, i = 0, 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row) and row[i + 1] in string.punctuation:
            i += 2
            continue
        count += row[i] == "|"
        i += 1
    return count

lines = md.splitlines()
tables = 0
for i, line in enumerate(lines):
    if i + 1 < len(lines) and line.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1]):
        tables += 1
        width = cells(line)
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            if cells(row) != width:
                problems.append(f"a row breaks its table ({cells(row)} pipes, want {width}): {row[:200]!r}")
if tables < 4:
    problems.append(f"only {tables} tables found")

# GitHub annotations: one workflow command per line, whatever the names hold.
for line in github.splitlines():
    if not line.startswith("::"):
        problems.append(f"a GitHub output line is not a workflow command: {line[:200]!r}")
if "\r" in github:
    problems.append("a raw carriage return in the GitHub output")

for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "markdown and github reports escape every name from the tree"
