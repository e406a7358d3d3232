#!/usr/bin/env bash
# `mpsaudit scan --probe` runs mpsaudit-probe on the scan and merges its
# verdicts; `mpsaudit probe REPORT` runs it on a saved report. Without a
# LibTorch build both must say plainly that the probe is missing.
set -euo pipefail
binary=$(realpath "$1") root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$root/samples/portable-light"

# scan --env: the user's interpreter records and their disagreements
"$binary" scan . --env "$root/tests/fixtures/compare/fallbacks/mac/env.json" --format json \
  -o "$work/env.json" 2>/dev/null || true
python3 - "$work/env.json" <<'PY'
import json, sys
environment = json.load(open(sys.argv[1]))["environment"]
assert len(environment["interpreters"]) == 1, environment
assert "mps-fallback-set" in [d["code"] for d in environment["disagreements"]], environment
PY
echo '{"not": "a record"}' >"$work/bad-env.json"
status=0
"$binary" scan . --env "$work/bad-env.json" >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "an unreadable environment record exits $status, want 2"

if [[ ! -x "$(dirname "$binary")/mpsaudit-probe" ]]; then
  status=0
  "$binary" scan . --probe >/dev/null 2>"$work/err" || status=$?
  [[ $status -eq 2 ]] || fail "--probe without a probe binary exits $status, want 2"
  grep -q 'mpsaudit-probe' "$work/err" || fail "the error does not name mpsaudit-probe"
  echo "no LibTorch in this build: --probe reports the missing probe"
  exit 0
fi

status=0
"$binary" scan . --probe --probe-target cpu --format json -o "$work/report.json" 2>/dev/null || status=$?
[[ $status -le 1 ]] || fail "scan --probe exited $status"
python3 - "$work/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
probe = report["assessment"]["probe"]
environment = probe["environment"]
assert "mps_built" in environment and "mps_available" in environment, environment
assert environment["libtorch_version"], environment
assert probe["operators"], "no operator verdicts"
for verdict in probe["operators"]:
    assert verdict["evidence"], verdict
level1 = report["assessment"]["acceptance"][0]
assert level1["level"] == 1 and "probe ran" in level1["evidence"], level1
PY

"$binary" scan . --format json -o "$work/plain.json" 2>/dev/null || true
"$binary" probe --target cpu -o "$work/verdicts.json" "$work/plain.json" >/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['environment']" "$work/verdicts.json"
"$binary" scan . --verdicts "$work/verdicts.json" --format json -o "$work/merged.json" 2>/dev/null || true
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['assessment']['probe']['operators']" "$work/merged.json"
echo "probe verdicts reach the assessment through --probe, probe + --verdicts"
