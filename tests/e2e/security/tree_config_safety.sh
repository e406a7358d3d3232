#!/usr/bin/env bash
# Attack: a scanned tree's own mpsaudit.toml silenced a hostile checkpoint
# with `exclude = ["*.pt"]`, a rule selection that turned the pickle rule off,
# a per-path ignore, its own baseline or `fail-on = "never"`: the pickle was
# never read or its finding never shown, the scan exited 0, and the text report
# did not say that a config from the tree was used.
# Promise (docs/security.md, "A tree's config"): a config found in the scanned
# tree is information, not authority, for the safety rules (MPS964): their
# findings are reported and fail the scan whatever it says. Only the user's
# own choices hide them: --config FILE, --select, --ignore, --baseline,
# --fail-on. Every human-readable report names the config used, relative to
# the current directory, and says whose it is.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"
cd "$work"

new_tree() { # name, then the text of its mpsaudit.toml
  mkdir -p "$1/src"
  python3 - "$1/weights/model.pt" <<'PY'
import os, sys, zipfile
# A torch zip checkpoint whose pickle calls posix.system (never unpickled here).
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
with zipfile.ZipFile(sys.argv[1], "w") as archive:
    archive.writestr("archive/data.pkl", b"\x80\x02cposix\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.")
    archive.writestr("archive/version", "3\n")
PY
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$1/src/canary.py"
  printf '%b' "$2" >"$1/mpsaudit.toml"
}
findings_of() { # rule: how many open findings of it
  python3 -c "import json,sys; print(sum(1 for f in json.load(open('$work/report.json'))['findings'] if f['rule']==sys.argv[1] and not f.get('suppressed')))" "$1"
}
expect_pickle() { # what the tree's config tried
  scan_json "$@"
  [[ $(findings_of MPS964) -eq 1 ]] || fail "$1: the hostile checkpoint's MPS964 is hidden: $(head -c 2000 "$work/report.json")"
  [[ $status -eq 1 ]] || fail "$1: exit $status with a hostile checkpoint, want 1: $(cat "$work/stderr")"
  python3 -c "import json,sys; w=json.load(open('$work/report.json'))['workflow']; sys.exit(0 if w['config_from_tree'] and w['config_file'].endswith('$1/mpsaudit.toml') else 1)" ||
    fail "$1: the JSON report does not name the tree's config"
}

# 1. The tree's globs: its excludes, or an include list without the checkpoint.
new_tree exclude 'exclude = ["*.pt", "src"]\n'
expect_pickle exclude
[[ $(findings_of MPS101) -eq 0 ]] || fail "the tree's exclude no longer hides src/ (it may, for other rules)"
grep -q "1 safety finding shown although exclude/mpsaudit.toml" "$work/stderr" ||
  fail "no note that the tree's config would hide the finding: $(cat "$work/stderr")"
new_tree include 'include = ["src/**"]\n'
expect_pickle include

# 2. Its rule selection: everything but one family, or the checkpoint family off.
new_tree enable '[rules]\nenable = ["MPS1"]\n'
expect_pickle enable
new_tree disable '[rules]\ndisable = ["checkpoints", "MPS964"]\n'
expect_pickle disable

# 3. A per-path ignore, and fail-on.
new_tree ignores '[per-path-ignores]\n"weights/**" = ["MPS9"]\n'
expect_pickle ignores
new_tree never 'fail-on = "never"\n'
expect_pickle never

# 4. Its own baseline, recording the pickle's finding.
new_tree baseline 'baseline = "known.baseline"\n'
"$binary" baseline write baseline/known.baseline --no-git --no-cache baseline 2>/dev/null ||
  true
grep -q MPS964 baseline/known.baseline || fail "baseline write did not record MPS964"
expect_pickle baseline

# 5. The text, Markdown and HTML reports name the config, from here, and whose it is.
new_tree named 'exclude = ["*.pt"]\n'
status=0
"$binary" scan --no-git --no-cache named -o "$work/r.txt" -o "$work/r.md" -o "$work/r.html" 2>/dev/null ||
  status=$?
[[ $status -eq 1 ]] || fail "the reports' scan exited $status, want 1"
want="Config: named/mpsaudit.toml, found in the scanned tree: it cannot hide findings of MPS964 (1 shown that it would hide)"
for report in r.txt r.md r.html; do
  grep -qF "$want" "$work/$report" || fail "$report does not name the tree's config: $(grep -i config "$work/$report" | head -3)"
done

# 6. The user's own choices still decide: --ignore, --select, --config, --baseline, --fail-on.
scan_json exclude --ignore MPS964
[[ $(findings_of MPS964) -eq 0 ]] || fail "--ignore MPS964 did not hide it"
scan_json disable --select MPS1
[[ $(findings_of MPS964) -eq 0 ]] || fail "--select MPS1 did not hide MPS964"
printf 'exclude = ["*.pt"]\n' >"$work/user.toml"
scan_json include --config "$work/user.toml"
[[ $(findings_of MPS964) -eq 0 && $status -eq 1 ]] || fail "the user's --config exclude did not hide the checkpoint"
python3 -c "import json,sys; sys.exit(0 if not json.load(open('$work/report.json'))['workflow']['config_from_tree'] else 1)" ||
  fail "a --config file is reported as the tree's"
scan_json baseline --baseline baseline/known.baseline
[[ $(findings_of MPS964) -eq 0 ]] || fail "the user's --baseline did not hide MPS964"
scan_json never --fail-on never
[[ $status -eq 0 ]] || fail "the user's --fail-on never exits $status, want 0"
echo "a config from the scanned tree cannot hide a hostile checkpoint"
