#!/usr/bin/env bash
# Finding 16 of the security review (docs/security.md, "Malformed input"):
# malformed input is never accepted silently. Each case asserts the message
# (naming the file) and the exit code of docs/cli.md.
set -euo pipefail
binary=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run() { # expected-status, then the command's arguments; output in $work/out
  local expected=$1 status=0
  shift
  "$binary" "$@" >"$work/out" 2>&1 || status=$?
  [[ $status -eq $expected ]] || fail "mpsaudit $*: exit $status, expected $expected: $(head -c 2000 "$work/out")"
}
says() { grep -qF -- "$1" "$work/out" || fail "output lacks '$1': $(head -c 2000 "$work/out")"; }

tree=$work/repo && mkdir -p "$tree"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$tree/canary.py"

# 1. A notebook cell whose "source" is an object: an error naming the file and
#    the cell (exit 3), and the canary's finding is still reported.
cat >"$tree/nb.ipynb" <<'NB'
{"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Setup\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": {"hidden": "x = torch.zeros(2).cuda()\n"}}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NB
run 3 scan --no-git "$tree"
# Paths read from the current directory: the scanned root as given, then the file.
says "error: $tree/nb.ipynb: cell 2: \"source\" is an object, not a string or a list of strings; the cell was not scanned [invalid-notebook]"
says "canary.py:2"
rm "$tree/nb.ipynb"

# 2. Baselines: a zero count and an unknown format are errors naming the line
#    (exit 2); an unknown rule is a warning and the scan goes on.
run 0 baseline write "$work/base" --no-git "$tree"
hash_line=$(grep -P '^MPS101\t' "$work/base")
{ echo '# mpsaudit baseline v1'; printf '%s\n' "$hash_line" | awk -F'\t' -v OFS='\t' '{$4 = 0; print}'; } >"$work/zero"
run 2 scan --no-git --baseline "$work/zero" "$tree"
says "$work/zero:2: the count must be a positive whole number"
{ echo '# mpsaudit baseline v7'; printf '%s\n' "$hash_line"; } >"$work/v7"
run 2 scan --no-git --baseline "$work/v7" "$tree"
says "$work/v7:1: unknown baseline format \`v7\`: this mpsaudit reads v1"
{ echo '# mpsaudit baseline v1'; printf '%s\n' "$hash_line" | awk -F'\t' -v OFS='\t' '{$1 = "MPS999"; print}'; } >"$work/gone"
run 1 scan --no-git --baseline "$work/gone" "$tree"
says "$work/gone:2: MPS999 is not a rule of this mpsaudit"
says "canary.py:2"
run 0 scan --no-git --baseline "$work/base" "$tree" # the written baseline still works

# 3. Hour thresholds that are not finite, or negative: config errors naming
#    the file, the line and the key (exit 2), before anything is scanned.
for value in nan inf -inf -5; do
  printf '[assess]\nkeep-min-hours = %s\n' "$value" >"$tree/mpsaudit.toml"
  run 2 scan --no-git "$tree"
  says "mpsaudit.toml:2"
  says '`assess.keep-min-hours` must be a finite number of hours, zero or more'
done
rm "$tree/mpsaudit.toml"

# 4. env --import: a whole `env -o` record is read (exit 0); a file that is no
#    record says what it is and what --import expects (exit 3).
cat >"$work/cell.json" <<'JSON'
{"python": {"executable": "/usr/bin/python3", "version": "3.11.2"},
 "platform": {"system": "Darwin", "machine": "arm64", "native_machine": "arm64"},
 "torch": {"importable": true, "version": "2.4.0", "mps_built": true, "mps_available": true}}
JSON
run 0 env --import "$work/cell.json" -o "$work/env.json"
run 0 env --import "$work/env.json"
says "$work/env.json: $work/cell.json (imported record) -> /usr/bin/python3"
says "MPS: built: yes, available: yes"
run 0 env --import "$work/env.json" --format json
python3 -c "
import json, sys
record = json.load(open('$work/out'))
assert [i['status'] for i in record['interpreters']] == ['ok'], record['interpreters']
" || fail "the imported record is not in the JSON output"
run 1 scan --no-git --format json -o "$work/report.json" "$tree"
run 3 env --import "$work/report.json"
says "$work/report.json: an \`mpsaudit scan\` report, not an environment record"
says 'or a record written by `mpsaudit env -o`'
echo "malformed input: every case is named, with its exit code"
