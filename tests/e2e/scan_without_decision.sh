#!/usr/bin/env bash
# A scan gives a decision only about files it read, and always about all of
# them (docs/cli.md):
#   - a path that does not exist is a usage error (exit 2);
#   - an empty tree, or one where everything is ignored, prints why there is
#     nothing to scan, writes no decision (JSON: "decision": null with
#     no_decision_reason) and exits 3;
#   - a baseline filters which findings are new, never the decision or effort;
#   - reports never name the build directory (the bundled effort model is
#     rules/effort.toml).
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

status=0
"$binary" scan --no-git "$work/missing" >"$work/out" 2>"$work/err" || status=$?
[[ $status -eq 2 ]] || fail "a missing path exits $status, want 2"
grep -q "no such file or directory: $work/missing" "$work/err" || fail "the missing path is not named: $(cat "$work/err")"
grep -q Decision "$work/out" && fail "a missing path printed a decision"

check_no_decision() { # tree, what it is
  local status=0
  "$binary" scan "$1" -o "$work/report.json" -o "$work/report.md" >"$work/out" 2>"$work/err" || status=$?
  [[ $status -eq 3 ]] || fail "$2: exit $status, want 3"
  grep -q "nothing to scan in $1" "$work/err" || fail "$2: no 'nothing to scan': $(cat "$work/err")"
  grep -q "Decision" "$work/err" "$work/report.md" && fail "$2: a decision was written"
  python3 - "$work/report.json" "$2" <<'PY' || fail "$2: JSON lacks the null decision"
import json, sys
report = json.load(open(sys.argv[1]))
assert "decision" in report and report["decision"] is None, report.keys()
assert report["no_decision_reason"].startswith("nothing to scan"), report["no_decision_reason"]
assert "assessment" not in report, sys.argv[2]
PY
}
mkdir "$work/empty"
check_no_decision "$work/empty" "an empty tree"
mkdir -p "$work/ignored"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/ignored/a.py"
printf '*.py\n' >"$work/ignored/.gitignore"
# A repository with an index: a .git without one (a fresh `git init`, or a
# planted one) is no work tree, and its tree is walked as with --no-git
# (docs/security.md, "a `.git` without an index hides nothing").
git -C "$work/ignored" init -q
git -C "$work/ignored" add .gitignore
check_no_decision "$work/ignored" "an all-ignored tree"

# A baseline hides known findings from the list and the exit code, not
# from the decision and the effort.
cp -r "$root/samples/outcome-keep-linux" "$work/keep"
"$binary" scan --no-git --format json "$work/keep" >"$work/full.json" 2>/dev/null || true
"$binary" scan --no-git --write-baseline "$work/keep.baseline" "$work/keep" >/dev/null 2>&1
status=0
"$binary" scan --no-git --format json --baseline "$work/keep.baseline" "$work/keep" >"$work/based.json" \
  2>"$work/err" || status=$?
[[ $status -eq 0 ]] || fail "a scan with every finding in the baseline exits $status, want 0"
grep -q "the decision and effort still count them" "$work/err" || fail "the note does not say the decision counts them"
python3 - "$work/full.json" "$work/based.json" <<'PY' || fail "the baseline changed the assessment"
import json, sys
full, based = (json.load(open(path)) for path in sys.argv[1:])
assert based["findings"] == [], "known findings are still listed"
assert full["assessment"]["decision"] == based["assessment"]["decision"]
assert full["assessment"]["effort"] == based["assessment"]["effort"]
assert full["assessment"]["decision"]["outcome"] == "KEEP_LINUX_GPU"
PY

# No report names the directory the binary was built in.
build_dir=$(cd "$(dirname "$binary")" && pwd)
for format in text json md html sarif; do
  "$binary" scan --no-git --format $format "$root/samples/outcome-adapt" >"$work/report.$format" 2>/dev/null || true
  ! grep -q "$build_dir" "$work/report.$format" || fail "the $format report names the build directory $build_dir"
  ! grep -q "$root/rules" "$work/report.$format" || fail "the $format report names $root/rules"
done
grep -q '"model": "rules/effort.toml"' "$work/report.json" || fail "the JSON report does not name rules/effort.toml"
echo "PASS: no decision without files; a baseline leaves the decision alone; no build paths"
