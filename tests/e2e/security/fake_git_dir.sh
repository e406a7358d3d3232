#!/usr/bin/env bash
# A downloaded tree can carry its own `.git` (docs/security.md, "File
# enumeration and git"). Attack: a minimal fake `.git` (HEAD, objects/,
# refs/, no index) plus a `.gitignore` listing model.pt made discovery take
# git's view of an empty index, so the hostile pickle model.pt that the
# tree's code loads was never read, nor listed among the skipped files.
# Promise: a `.git` without a readable index is no repository: the tree is
# walked as with --no-git and the pickle is reported (MPS964). And in a real
# repository, what .gitignore hides is still accounted for: listed as
# skipped with the reason `gitignored` (an ignored directory as one entry).
# Usage: fake_git_dir.sh <mpsaudit binary> <source dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }
marker=$WORK/marker-a-payload-ran

# A tree whose code loads model.pt, a pickle that calls posix.system.
make_tree() { # directory
  mkdir -p "$1"
  printf 'import torch\nstate = torch.load("model.pt", weights_only=False)\n' >"$1/train.py"
  python3 - "$1/model.pt" "$marker" <<'PY'
import os, pickle, sys
class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))
open(sys.argv[1], "wb").write(pickle.dumps({"state_dict": {}, "hook": Payload()}, protocol=2))
PY
  printf 'model.pt\nlogs/\n' >"$1/.gitignore"
  mkdir -p "$1/logs" && printf 'step 1\n' >"$1/logs/run.txt"
}
scan() { # directory, then scan options; the JSON report in $WORK/report.json
  local directory=$1 code=0
  shift
  (cd "$directory" && timeout 60 "$BIN" scan . "$@" --no-config --format json -o "$WORK/report.json" \
    >"$WORK/out" 2>"$WORK/err") || code=$?
  [ "$code" = 1 ] || [ "$code" = 0 ] || { cat "$WORK/err" >&2; fail "scan in $directory exited $code"; }
}
report_has() { # python expression over `r`
  python3 -c "import json, sys; r = json.load(open('$WORK/report.json')); sys.exit(0 if ($1) else 1)"
}
hostile_reported='any(f["rule"] == "MPS964" and f["path"] == "model.pt" and "posix.system" in f["message"] for f in r["findings"])'

# 1. The fake .git: HEAD, objects/, refs/, nothing else.
make_tree "$WORK/fake"
mkdir -p "$WORK/fake/.git/objects" "$WORK/fake/.git/refs/heads"
printf 'ref: refs/heads/main\n' >"$WORK/fake/.git/HEAD"
scan "$WORK/fake"
report_has "$hostile_reported" || fail "the fake .git hid model.pt"
report_has 'any(f["path"] == "logs/run.txt" for f in r["files"] + r["skipped"])' ||
  fail "the fake .git's .gitignore still hides logs/"

# 2. A repository just made with git init, nothing added: no index either.
make_tree "$WORK/fresh"
git init -q -b main "$WORK/fresh"
scan "$WORK/fresh"
report_has "$hostile_reported" || fail "a repository without an index hid model.pt"

# 3. A real repository with an index: ignored paths stay unread, but each is
# listed as skipped, gitignored (an ignored directory as one entry).
make_tree "$WORK/real"
git -C "$WORK/real" init -q -b main
git -C "$WORK/real" add -A
git -C "$WORK/real" -c user.email=lab@example.org -c user.name=Lab commit -q -m start
scan "$WORK/real"
report_has '{(s["path"], s["reason"]) for s in r["skipped"]} >= {("model.pt", "gitignored"), ("logs", "gitignored")}' ||
  fail "ignored paths are not listed as skipped, gitignored: $(python3 -c "import json; print(json.load(open('$WORK/report.json'))['skipped'])")"
report_has 'r["summary"]["skipped_by_reason"].get("gitignored") == 2' || fail "skipped_by_reason lacks gitignored: 2"
report_has 'not any(f["path"] == "model.pt" for f in r["files"])' || fail "an ignored file was read"

[ ! -e "$marker" ] || fail "a payload ran during the scan"
echo "PASS: a .git without an index hides nothing; ignored paths are listed as skipped"
