#!/usr/bin/env bash
# `--format summary` (docs/report-formats.md): at most 8 lines, the decision,
# effort and native-port lines exactly as the text report prints them (one
# figure, one rounding), its counts line, and the top 3 blockers. For every
# sample. A partial scan prints no decision, and ranks rules instead; a clean
# tree lists no blockers; nothing is repeated on standard error.
# Usage: summary_format.sh <mpsaudit binary> <repository root>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/git_sandbox.bash" "$1"
root=$2
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*"; exit 1; }

checked=0
for sample in "$root"/samples/*/; do
  name=$(basename "$sample")
  "$BIN" scan --no-git --no-cache --color never "$sample" >"$WORK/text" 2>/dev/null || true
  "$BIN" scan --no-git --no-cache --format summary "$sample" >"$WORK/summary" 2>"$WORK/err" || true
  lines=$(wc -l <"$WORK/summary")
  [ "$lines" -ge 1 ] && [ "$lines" -le 8 ] || fail "$name: $lines summary lines: $(cat "$WORK/summary")"
  grep -q '^Decision: \|^Effort: \|findings\? (' "$WORK/err" && fail "$name: the summary is repeated on standard error"
  # Every line but the blockers is a line of the text report, word for word.
  while IFS= read -r line; do
    case $line in "- "* | "Top blockers:") continue ;; esac
    grep -qxF -- "$line" "$WORK/text" || fail "$name: '$line' is not a line of the text report"
  done <"$WORK/summary"
  for prefix in "Decision: " "Effort: " "Native port: "; do
    if grep -q "^$prefix" "$WORK/text"; then
      grep -q "^$prefix" "$WORK/summary" || fail "$name: the summary lacks the text report's '$prefix' line"
    fi
  done
  blockers=$(grep -c '^- ' "$WORK/summary" || true)
  [ "$blockers" -le 3 ] || fail "$name: $blockers blockers listed, at most 3"
  checked=$((checked + 1))
done
[ "$checked" -gt 10 ] || fail "only $checked samples checked"

# The near case: a tree with nothing to port lists no blockers.
mkdir -p "$WORK/clean"
printf 'import torch\n\ndef double(x):\n    return x * 2\n' >"$WORK/clean/model.py"
"$BIN" scan --no-git --no-cache --format summary "$WORK/clean" >"$WORK/summary" 2>/dev/null
grep -q '^Decision: ADAPT' "$WORK/summary" || fail "clean tree: $(cat "$WORK/summary")"
grep -q '^Top \|^- ' "$WORK/summary" && fail "clean tree lists blockers: $(cat "$WORK/summary")"

# A partial scan: no repository verdict; its rules ranked, errors first.
git init -q -b main "$WORK/repo"
cd "$WORK/repo"
printf 'import torch\nx = torch.zeros(1).cuda()\ny = torch.ones(1).cuda()\n' >a.py
printf 'import triton\n' >b.py
git add -A
status=0
"$BIN" scan --format summary a.py b.py >"$WORK/summary" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || fail "partial summary scan exited $status, want 1"
grep -q '^Decision\|^Effort' "$WORK/summary" && fail "a partial scan printed a verdict: $(cat "$WORK/summary")"
grep -q 'partial scan: 2 files named on the command line' "$WORK/summary" || fail "not labelled partial: $(cat "$WORK/summary")"
[ "$(sed -n 2p "$WORK/summary")" = "Top rules:" ] || fail "no rule ranking: $(cat "$WORK/summary")"
sed -n 3p "$WORK/summary" | grep -q '^- MPS401 at b.py:1$' || fail "the error's rule is not first: $(cat "$WORK/summary")"
sed -n 4p "$WORK/summary" | grep -q '^- MPS[0-9]* x2, first at a.py:2$' || fail "the repeated rule: $(cat "$WORK/summary")"
echo "summary format: $checked samples, a clean tree and a partial scan"
