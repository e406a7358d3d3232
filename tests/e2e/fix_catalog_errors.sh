#!/usr/bin/env bash
# rules/fixes.toml is loaded once per session and passed on explicitly: a
# broken one is a diagnostic naming it and exit code 2 for scan and fix alike
# (it used to read as "no fixes" for scan's effort credit); a rules directory
# without one scans as before.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/rules" "$work/rules"
mkdir "$work/tree"
printf 'import torch\nx = torch.zeros(1).cuda()\n' >"$work/tree/train.py"

# Valid TOML (the rule catalog reads it too), but not a fix catalog.
printf '[[fix]]\nrule = "MPS201"\nkind = "nonsense"\n' >"$work/rules/fixes.toml"
for command in scan fix; do
  status=0
  "$binary" "$command" --no-config --no-git --rules-dir "$work/rules" "$work/tree" >/dev/null 2>"$work/err" || status=$?
  if [[ $status -ne 2 ]] || ! grep -q "fixes.toml" "$work/err"; then
    echo "$command with a broken fixes.toml: exit $status, expected 2 and a diagnostic naming it:" >&2
    cat "$work/err" >&2
    exit 1
  fi
done

rm "$work/rules/fixes.toml"
status=0
"$binary" scan --no-config --no-git --rules-dir "$work/rules" --format json "$work/tree" >"$work/report.json" 2>/dev/null ||
  status=$?
[[ $status -eq 1 ]] || { echo "scan without fixes.toml: exit $status, expected 1 (a finding)" >&2; exit 1; }
grep -q '"MPS201"' "$work/report.json" || { echo "scan without fixes.toml lost its finding" >&2; exit 1; }
echo "a broken fixes.toml is an error for scan and fix; a missing one only drops the fix credit"
