#!/usr/bin/env bash
# The text report on an 80-column terminal, on every labelled dev-set
# repository (../shared/devset/repos beside the checkout): the verdict, its
# reasons, the effort and the entry table come within 120 lines, before the
# first finding, and no line is wider than the terminal except a cut code
# line (docs/report-formats.md, "Text"). Passes with a note when the dev set
# is absent.
# Usage: concise_devset.sh <mpsaudit binary> <source dir>
set -euo pipefail
binary=$(realpath "$1")
devset=$(cd "$2/.." && pwd)/shared/devset
if [[ ! -d $devset/repos ]]; then
  echo "skipped: no dev set at $devset"
  exit 0
fi
command -v script >/dev/null || { echo "SKIP: script(1) is missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset MPSAUDIT_RULES_DIR COLUMNS
export TERM=xterm
trees=0
for tree in "$devset"/repos/*/; do
  name=$(basename "$tree")
  (cd "$devset/repos" &&
    script -qec "stty cols 80; $binary scan --no-git --color never --fail-on never $name 2>/dev/null" /dev/null \
      </dev/null | tr -d '\r' >"$work/$name.txt")
  trees=$((trees + 1))
done
python3 - "$work" <<'PY'
import pathlib, re, sys
finding = re.compile(r"^\S+:\d+:\d+: MPS\d+ ")
code = re.compile(r"^\s+(\d+ |cell \d+:\d+ )?\|")
failures = []
for report in sorted(pathlib.Path(sys.argv[1]).glob("*.txt")):
    lines = report.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0].startswith("Decision: "), f"{report.stem}: starts {lines[:1]}"
    head = next((i for i, line in enumerate(lines) if finding.match(line)), len(lines))
    wide = [line for line in lines if len(line) > 80 and not code.match(line)]
    if head > 120:
        failures.append(f"{report.stem}: {head} lines before the first finding")
    if wide:
        failures.append(f"{report.stem}: {len(wide)} lines wider than 80, e.g. {wide[0]!r}")
assert not failures, "\n".join(failures)
PY
echo "$trees dev-set repositories: verdict, reasons and entry table within 120 lines at 80 columns"
