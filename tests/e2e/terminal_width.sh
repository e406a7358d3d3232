#!/usr/bin/env bash
# On a terminal the text report fits its width (docs/report-formats.md,
# "Text"): no line is wider than the terminal; code lines and entry-table
# rows are cut with an ellipsis; everything else is wrapped at spaces, so
# no word is split and no word is lost. Piped, the report is as written.
# On a terminal it is also concise: the verdict first and last, the piped
# report's order under --full.
# Usage: terminal_width.sh <mpsaudit binary> <repository root>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
root=$(realpath "$2")
command -v script >/dev/null || { echo "SKIP: script(1) is missing"; exit 77; }
unset MPSAUDIT_RULES_DIR COLUMNS
export TERM=xterm
cp -r "$root/samples/outcome-keep-linux" "$work/tree"
# A code line longer than any terminal, to be cut.
printf 'import torch\nx = torch.zeros(3).cuda()  # %s\n' "$(printf 'long comment %.0s' $(seq 1 20))" >"$work/tree/long.py"
cd "$work"
scan=(scan --no-git --no-cache --color never --fail-on never tree)

for columns in 80 120; do
  script -qec "stty cols $columns; $binary ${scan[*]} --full" /dev/null </dev/null | tr -d '\r' >"$work/terminal"
  "$binary" "${scan[@]}" --full >"$work/piped" 2>/dev/null
  python3 - "$work/terminal" "$work/piped" "$columns" <<'PY' || fail "at $columns columns"
import re, sys
terminal, piped = (open(path, encoding="utf-8").read() for path in sys.argv[1:3])
columns = int(sys.argv[3])
lines = terminal.splitlines()
wide = [line for line in lines if len(line) > columns]
assert not wide, f"lines wider than {columns}: {wide[:3]}"
assert any(len(line) > columns for line in piped.splitlines()), "the piped report should be as written"
cut = [line for line in lines if line.endswith("\u2026")]
assert any(re.match(r"\s+\d+ \| x = torch", line) for line in cut), "the long code line is not cut"
assert any(line.startswith("  tree/train.py") for line in cut) or all(
    len(line) <= columns for line in piped.splitlines() if line.startswith("  tree/train.py")), "entry row"
# Wrapped, not cut: the reasons and the decision read word for word as piped.
def prose(text):
    keep = []
    for line in text.splitlines():
        if line.endswith("\u2026") or re.match(r"\s+(\d+ )?\|", line) or line.startswith("  tree/train.py"):
            continue
        keep.append(line.strip())
    return " ".join(" ".join(keep).split())
assert prose(terminal) == prose(piped), "wrapping changed the words"
PY
done
# Concise on a terminal: the decision opens and closes the report, its lines
# are the piped report's, and the reasons are the first few.
script -qec "stty cols 80; $binary ${scan[*]}" /dev/null </dev/null | tr -d '\r' >"$work/concise"
"$binary" "${scan[@]}" >"$work/piped" 2>/dev/null
python3 - "$work/concise" "$work/piped" <<'PY' || fail "concise on a terminal"
import sys
concise, piped = (open(path, encoding="utf-8").read().splitlines() for path in sys.argv[1:3])
assert concise[0].startswith("Decision: "), concise[:3]
assert piped[0].startswith("Entry points"), piped[:3]
last_decision = max(i for i, line in enumerate(concise) if line.startswith("Decision: "))
assert last_decision > concise.index("Why"), "the decision does not close the report"
assert concise.index("Why") < concise.index("Entry points (1)") + 8, "entry points, then why"
# The same words as the piped decision line, wrapped.
decision = next(line for line in piped if line.startswith("Decision: "))
block = concise[:concise.index(next(l for l in concise if l.startswith("Effort: ")))]
assert " ".join(" ".join(block).split()) == decision, (block, decision)
PY
echo "the text report fits 80 and 120 columns: code cut, prose wrapped at spaces; concise on a terminal"
