#!/usr/bin/env bash
# mpsaudit compare on the fixture runs: each case's verdict, the exit codes of
# --fail-on, JSON output, and that the committed fixtures are what
# tests/fixtures/compare/make-fixtures.py writes.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
fixtures=$root/tests/fixtures/compare

declare -A expected=(
  [identical]=native [within-tolerance]=native [beyond-tolerance]=stopped [nan-on-mac]=stopped
  [key-mismatch]=stopped [float64-to-float32]=dual [dataparallel-prefix]=dual [fallbacks]=dual
  [not-implemented]=stopped [seed-mismatch]=dual)
for case in "${!expected[@]}"; do
  want=${expected[$case]}
  status=0
  "$binary" compare "$fixtures/$case/linux" "$fixtures/$case/mac" >"$work/$case.txt" || status=$?
  grep -q "^Verdict: $want:" "$work/$case.txt" || fail "$case: want $want, got: $(grep '^Verdict' "$work/$case.txt")"
  want_status=0; [[ $want == stopped ]] && want_status=1
  [[ $status -eq $want_status ]] || fail "$case: exit $status, want $want_status"
  status=0; "$binary" compare --fail-on dual "$fixtures/$case/linux" "$fixtures/$case/mac" >/dev/null || status=$?
  want_status=1; [[ $want == native ]] && want_status=0
  [[ $status -eq $want_status ]] || fail "$case --fail-on dual: exit $status, want $want_status"
done

# JSON, and the Mac run found by its record when given first.
"$binary" compare --format json --fail-on never "$fixtures/fallbacks/mac" "$fixtures/fallbacks/linux" >"$work/out.json"
python3 - "$work/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "dual", d["verdict"]
assert d["mac_run"].endswith("fallbacks/mac"), d["mac_run"]
assert [c["id"] for c in d["checks"]] == ["checkpoints", "seeds-config", "metrics", "fallbacks"]
assert d["checks"][3]["status"] == "caveat"
PY

# A tolerance the user states turns the beyond-tolerance case around.
"$binary" compare --tolerance '*=0.3' "$fixtures/beyond-tolerance/linux" "$fixtures/beyond-tolerance/mac" |
  grep -q '^Verdict: native:' || fail "--tolerance '*=0.3' does not accept a 25% gap"

# Usage errors.
status=0; "$binary" compare "$fixtures/identical/linux" >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "one run exits $status, want 2"
status=0; "$binary" compare "$fixtures/identical/linux" "$work/no-such-run" >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "a missing run exits $status, want 2"
status=0; "$binary" compare --tolerance loss "$fixtures/identical/linux" "$fixtures/identical/mac" >/dev/null 2>&1 ||
  status=$?
[[ $status -eq 2 ]] || fail "a bad --tolerance exits $status, want 2"

# The committed fixtures are the generator's output.
python3 "$fixtures/make-fixtures.py" "$work/fresh" >/dev/null
diff -r -x make-fixtures.py -x __pycache__ "$work/fresh" "$fixtures" || fail "fixtures differ from make-fixtures.py's output"
echo "compare fixtures: ok"
