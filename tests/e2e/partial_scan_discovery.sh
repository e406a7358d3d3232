#!/usr/bin/env bash
# Partial scans (--staged, --changed-since, files named as pre-commit names
# them) ask git about the changed paths only instead of listing the whole
# repository. This checks that they read the same files and report the same
# findings as before, when the whole repository was listed and then
# filtered, on a repository with added, modified, renamed, deleted and
# unstaged files, a file outside the include globs, paths with spaces and
# glob characters, a staged file removed from the work tree, broken symbolic
# links, an ignored file and a file under an excluded directory. The expected
# lists are those the listing implementation gave, except one intended
# difference: a broken link outside the change is no longer named. The --no-git
# walk, which still lists everything and filters, must agree too.
# Usage: partial_scan_discovery.sh <mpsaudit binary> <repository root>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*"; exit 1; }

git init -q -b main "$WORK/repo"
cd "$WORK/repo"
git config user.email lab@example.org
git config user.name "A Lab"
mkdir -p src tools
printf 'import torch\nm = torch.nn.Linear(2, 2)\n' > src/model.py
printf 'import torch\nx = torch.zeros(1)\n' > src/old.py
printf 'import torch\ny = torch.zeros(1).cuda()\n' > src/gone.py
printf 'import torch\nz = 1\n' > src/ghost.py
printf 'import torch\ns = torch.zeros(1).cuda()\n' > src/stable.py
printf 'torch\nnumpy\n' > requirements.txt
printf 'import torch\n' > tools/outside.py
ln -s missing.py src/dangling.py
printf 'include = ["src/**", "requirements.txt"]\n' > mpsaudit.toml
printf 'ignored.py\n' > .gitignore
git add -A
git commit -q -m start

printf 'import torch\nm = torch.nn.Linear(2, 2).cuda()\n' > src/model.py    # modified
git mv src/old.py src/renamed.py                                              # renamed, then edited
printf 'import numpy\nx = torch.zeros(1).cuda()\n' >> src/renamed.py
git rm -q src/gone.py                                                         # deleted
mkdir -p "src/with space" venv
printf 'import torch, scipy\ntorch.cuda.synchronize()\n' > "src/with space/new file.py"
printf 'import torch\nk = torch.zeros(1).cuda()\n' > 'src/star[1].py'        # glob characters
printf 'torch\nnumpy\npandas\n' > requirements.txt                           # the dependency cross-check's input
printf 'import torch\nt = torch.zeros(1).cuda()\n' > tools/outside.py        # outside include
printf 'import torch\nq = torch.zeros(1).cuda()\n' > src/ghost.py
ln -s nowhere.py src/broken.py                                                # a new broken link
printf 'import torch\nv = torch.zeros(1).cuda()\n' > venv/x.py               # excluded directory
git add -A
git add -f venv/x.py
rm src/ghost.py                                                               # staged, then removed
printf 'import torch\nw = torch.zeros(1).cuda()\n' > ignored.py
printf 'import torch\nu = torch.zeros(1).cuda()\n' > src/unstaged.py         # untracked

# summary <file> <args...>: the scanned files, diagnostics, findings and
# partial-scan label of one scan, one JSON document per line.
summary() {
  local out=$1
  shift
  local code=0
  "$BIN" scan "$@" --format json -o "$WORK/report.json" 2> "$WORK/err" || code=$?
  [ "$code" = 1 ] || { cat "$WORK/err"; fail "mpsaudit scan $* exited $code, expected 1"; }
  python3 - "$WORK/report.json" > "$out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(json.dumps(sorted(f["path"] for f in report["files"])))
print(json.dumps(sorted([d["path"], d["code"]] for d in report["diagnostics"])))
print(json.dumps(sorted([f["rule"], f["path"], f["line"]] for f in report["findings"])))
print(json.dumps(report["workflow"]["partial_scan"]))
PY
}
# expect <summary file> <line number> <expected JSON>
expect() {
  local got
  got=$(sed -n "$2p" "$1")
  [ "$got" = "$3" ] || fail "$1 line $2: got $got, expected $3"
}

STAGED_FINDINGS='[["MPS101", "src/with space/new file.py", 2], ["MPS201", "src/model.py", 2], ["MPS201", "src/renamed.py", 4], ["MPS201", "src/star[1].py", 2], ["MPS714", "requirements.txt", 3]]'

summary "$WORK/staged" --staged
expect "$WORK/staged" 1 '["requirements.txt", "src/model.py", "src/renamed.py", "src/star[1].py", "src/with space/new file.py"]'
# Only the changed broken link is named: src/dangling.py is not part of the change.
expect "$WORK/staged" 2 '[["src/broken.py", "broken-symlink"]]'
expect "$WORK/staged" 3 "$STAGED_FINDINGS"
expect "$WORK/staged" 4 '"staged files only (9)"'

summary "$WORK/changed" --changed-since HEAD
expect "$WORK/changed" 1 '["requirements.txt", "src/model.py", "src/renamed.py", "src/star[1].py", "src/unstaged.py", "src/with space/new file.py"]'
expect "$WORK/changed" 2 '[["src/broken.py", "broken-symlink"]]'
expect "$WORK/changed" 3 '[["MPS101", "src/with space/new file.py", 2], ["MPS201", "src/model.py", 2], ["MPS201", "src/renamed.py", 4], ["MPS201", "src/star[1].py", 2], ["MPS201", "src/unstaged.py", 2], ["MPS714", "requirements.txt", 3]]'
expect "$WORK/changed" 4 '"files changed since HEAD (9)"'

# Without the config, the file outside `include` is read; venv/ never is.
summary "$WORK/staged-all" --staged --no-config
expect "$WORK/staged-all" 1 '["requirements.txt", "src/model.py", "src/renamed.py", "src/star[1].py", "src/with space/new file.py", "tools/outside.py"]'

# Files named on the command line, as pre-commit names them.
summary "$WORK/named" "src/with space/new file.py" src/model.py tools/outside.py 'src/star[1].py' ignored.py
expect "$WORK/named" 1 '["src/model.py", "src/star[1].py", "src/with space/new file.py"]'
expect "$WORK/named" 2 '[]'
expect "$WORK/named" 4 '"5 files named on the command line"'

# The same files and findings as listing the whole tree and filtering it.
for mode in "--staged" "--changed-since HEAD" "--staged --no-config"; do
  # shellcheck disable=SC2086
  summary "$WORK/listed" $mode --no-git
  case $mode in
    --staged) fast="$WORK/staged" ;;
    --changed-since*) fast="$WORK/changed" ;;
    *) fast="$WORK/staged-all" ;;
  esac
  for line in 1 3 4; do
    [ "$(sed -n "${line}p" "$fast")" = "$(sed -n "${line}p" "$WORK/listed")" ] ||
      fail "$mode differs from $mode --no-git on line $line: $(sed -n "${line}p" "$fast") against $(sed -n "${line}p" "$WORK/listed")"
  done
done

# A full scan still names every broken link.
code=0
"$BIN" scan . --format json -o "$WORK/full.json" 2> /dev/null || code=$?
[ "$code" = 1 ] || fail "full scan exited $code"
python3 - "$WORK/full.json" <<'PY' || fail "the full scan lost a broken-symlink diagnostic"
import json, sys
report = json.load(open(sys.argv[1]))
named = {d["path"] for d in report["diagnostics"] if d["code"] == "broken-symlink"}
sys.exit(0 if named == {"src/broken.py", "src/dangling.py"} else 1)
PY

# Nothing staged: nothing read, exit 0.
git reset -q
code=0
"$BIN" scan --staged --format json -o "$WORK/empty.json" 2> "$WORK/err" || code=$?
[ "$code" = 0 ] || { cat "$WORK/err"; fail "--staged with nothing staged exited $code"; }
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(1 if r["files"] else 0)' "$WORK/empty.json" ||
  fail "--staged with nothing staged read files"
echo "PASS: partial scans read the changed files only, with the findings of a full listing"
