#!/usr/bin/env bash
# The CLI's contract: exit codes, formats, explain, deterministic output.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/clean" "$work/dirty" "$work/broken"
printf 'import torch\nx = torch.zeros(3)\n' >"$work/clean/a.py"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/dirty/a.py"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/broken/a.py"
printf '{"cells": [' >"$work/broken/b.ipynb"

status=0; "$binary" scan --no-git "$work/clean" >/dev/null || status=$?
[[ $status -eq 0 ]] || fail "clean tree exits $status, want 0"
status=0; "$binary" scan --no-git "$work/dirty" >"$work/out.txt" || status=$?
[[ $status -eq 1 ]] || fail "findings exit $status, want 1"
grep -q 'a.py:2:12: MPS101' "$work/out.txt" || fail "text output lacks the located finding"
grep -q 'fix: torch.mps.synchronize()' "$work/out.txt" || fail "text output lacks the fix"
status=0; "$binary" scan --no-git --fail-on error "$work/dirty" >/dev/null || status=$?
[[ $status -eq 0 ]] || fail "--fail-on error with only warnings exits $status, want 0"
status=0; "$binary" scan --no-git "$work/broken" >"$work/broken.txt" 2>&1 || status=$?
[[ $status -eq 3 ]] || fail "scan errors exit $status, want 3"
grep -q 'b.ipynb' "$work/broken.txt" || fail "the diagnostic does not name the broken notebook"
grep -q 'MPS101' "$work/broken.txt" || fail "a broken file hid another file's finding"
"$binary" scan --no-git --profile --fail-on never "$work/dirty" >/dev/null 2>"$work/profile.txt"
for phase in 'mpsaudit profile' 'discover' 'read, extract facts, first rules' 'front end python' 'assess' \
  'report text' 'total'; do
  grep -q "$phase" "$work/profile.txt" || fail "--profile lacks '$phase': $(cat "$work/profile.txt")"
done
status=0; "$binary" scan --no-such-option >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "usage error exits $status, want 2"
status=0; "$binary" frobnicate >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "unknown command exits $status, want 2"

"$binary" scan --no-git --format json "$work/dirty" >"$work/a.json" || true
"$binary" scan --no-git --format json -j 1 "$work/dirty" >"$work/b.json" || true
cmp -s "$work/a.json" "$work/b.json" || fail "JSON output depends on the thread count"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['findings'][0]['rule']=='MPS101', d" "$work/a.json"

"$binary" explain MPS101 >"$work/explain.txt"
grep -q 'torch.mps.synchronize' "$work/explain.txt" || fail "explain MPS101 lacks the replacement"
# explain says whether `mpsaudit fix` handles the rule, and how safely.
"$binary" explain MPS201 >"$work/explain.txt"
grep -A1 'Automatic fix' "$work/explain.txt" | grep -q '(safe' || fail "explain MPS201 does not name its safe fix"
"$binary" explain MPS801 >"$work/explain.txt"
grep -A1 'Automatic fix' "$work/explain.txt" | grep -q 'none' || fail "explain MPS801 does not say it has no fix"
"$binary" explain cuda-synchronize >"$work/explain.txt"
grep -q '^MPS101' "$work/explain.txt" || fail "explain by rule name"
status=0; "$binary" explain MPS999 >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "explain of an unknown rule exits $status, want 2"
"$binary" rules >"$work/rules.txt"
grep -q 'MPS201  dot-cuda' "$work/rules.txt" || fail "rules lists the catalog"

# --help and -h on every command exit 0 and print help; -V is --version.
for command in scan probe env compare baseline config fix rules explain version help; do
  for flag in --help -h; do
    status=0; "$binary" "$command" "$flag" >"$work/help.txt" 2>&1 || status=$?
    [[ $status -eq 0 ]] || fail "$command $flag exits $status, want 0: $(head -c 300 "$work/help.txt")"
    [[ -s $work/help.txt ]] || fail "$command $flag prints nothing"
  done
done
[[ $("$binary" -V) == $("$binary" --version) ]] || fail "-V is not --version"
# `scan --help` lists every option that docs/cli.md's table lists (the table
# is `help --markdown`, which cli_doc_current.sh compares with the doc).
"$binary" scan --help >"$work/scan-help.txt"
while IFS= read -r option; do
  grep -qF -- "$option" "$work/scan-help.txt" || fail "scan --help lacks $option"
done < <("$binary" help --markdown | sed -n 's/^| `\(-[^ `,]*\).*/\1/p')
# After `--`, --help is a path, not a request for help.
status=0; "$binary" scan --no-git -- --help >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "scan -- --help exits $status, want 2 (no such path)"
# A config error names the file relative to the current directory, as
# findings do, never by its absolute path.
mkdir -p "$work/badcfg/src"
printf 'exclud = ["x"]\n' >"$work/badcfg/mpsaudit.toml"
printf 'import torch\n' >"$work/badcfg/src/a.py"
(cd "$work/badcfg" && "$binary" scan --no-git . >/dev/null 2>"$work/badcfg.err") || true
grep -q '^mpsaudit: mpsaudit.toml:1: unknown key `exclud`' "$work/badcfg.err" ||
  fail "config error path: $(cat "$work/badcfg.err")"
grep -qF "$work" "$work/badcfg.err" && fail "a config error prints an absolute path: $(cat "$work/badcfg.err")"

# The parse worker beside the plugin is started by a scan, with its socket
# on descriptor 3; run by hand it says so and exits 2.
worker=$(dirname "$binary")/mpsaudit-parse-worker
if [[ -x $worker ]]; then
  status=0; "$worker" 0 >/dev/null 2>"$work/worker.txt" </dev/null || status=$?
  [[ $status -eq 2 ]] || fail "mpsaudit-parse-worker by hand exits $status, want 2"
  grep -q 'started by mpsaudit itself' "$work/worker.txt" || fail "the worker by hand: $(cat "$work/worker.txt")"
fi
echo "CLI contract holds"
