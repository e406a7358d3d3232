#!/usr/bin/env bash
# rules/assess.toml, the assessment's vocabulary, is read from the rules
# directory like fixes.toml: a broken one is a diagnostic naming the file and
# line and exit code 2 for scan and fix alike; a rules directory without one
# keeps the vocabulary the binary embeds.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
root=$2
cp -r "$root/rules" "$work/rules"
mkdir "$work/tree"
printf 'import torch\nx = torch.zeros(1).cuda()\n' >"$work/tree/train.py"

# A weight that is not a whole number, on a line of its own.
sed -i 's/^script = 1 /script = "one" /' "$work/rules/assess.toml"
line=$(grep -n '^script = "one"' "$work/rules/assess.toml" | cut -d: -f1)
[[ -n $line ]] || fail "the test could not plant its broken weight"
for command in scan fix; do
  status=0
  "$binary" "$command" --no-config --no-git --rules-dir "$work/rules" "$work/tree" >/dev/null 2>"$work/err" || status=$?
  [[ $status -eq 2 ]] || fail "$command with a broken assess.toml: exit $status, expected 2: $(cat "$work/err")"
  grep -q "assess.toml:$line: 'script' in \[file_roles.weights\]" "$work/err" ||
    fail "$command with a broken assess.toml: no diagnostic naming its line $line: $(cat "$work/err")"
done

rm "$work/rules/assess.toml"
status=0
"$binary" scan --no-config --no-git --rules-dir "$work/rules" --format json "$work/tree" >"$work/report.json" 2>/dev/null ||
  status=$?
[[ $status -eq 1 ]] || fail "scan without assess.toml: exit $status, expected 1 (a finding)"
grep -q '"MPS201"' "$work/report.json" || fail "scan without assess.toml lost its finding"
echo "a broken assess.toml is an error naming its line for scan and fix; a missing one keeps the embedded vocabulary"
