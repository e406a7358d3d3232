#!/usr/bin/env bash
# A repository's git metadata is read in-process and is attacker-controlled
# (docs/security.md, "File enumeration and git"):
#   - a tracked file whose directory was replaced by a symlink to another
#     tree is not read through the link (full scan, files named as
#     pre-commit names them, --changed-since);
#   - a FIFO as .git/index, as .gitignore or as .git/info/exclude does not
#     block the scan: a warning names it and the other files are scanned;
#   - a `.git` file pointing at a FIFO or nowhere is not a repository: the
#     tree is walked.
# Usage: git_hostile_metadata.sh <mpsaudit binary> <source dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }

new_repo() {
  work_repo
  mkdir -p src
  printf 'import torch\nm = torch.nn.Linear(2, 2)\n' >src/model.py
  printf 'import torch\ntorch.cuda.synchronize()\n' >canary.py
  git add -A
  git commit -q -m start
}
scan() { # JSON report in $WORK/report.json; must finish
  local code=0
  timeout 60 "$BIN" scan "$@" --no-config --format json -o "$WORK/report.json" --fail-on never \
    >"$WORK/out" 2>"$WORK/err" || code=$?
  [ "$code" = 0 ] || [ "$code" = 3 ] || { cat "$WORK/err" >&2; fail "scan $* exited $code"; }
}
report_has() { # python expression over `r`
  python3 -c "import json, sys; r = json.load(open('$WORK/report.json')); sys.exit(0 if ($1) else 1)"
}

# 1. A tracked path through a symlinked directory.
new_repo
mkdir -p "$WORK/outside"
printf 'import torch\ntorch.cuda.synchronize()  # outside the tree\n' >"$WORK/outside/model.py"
rm -rf src && ln -s "$WORK/outside" src
for args in "." "src/model.py canary.py" ". --changed-since HEAD"; do
  # shellcheck disable=SC2086
  scan $args
  report_has 'not any(f["path"].startswith("src/") for f in r["files"] + r["findings"])' ||
    fail "scan $args read src/model.py through the symlinked directory"
done
scan .
report_has 'any(s["path"] == "src" and s["reason"] == "symlink-directory" for s in r["skipped"])' ||
  fail "the symlinked directory is not listed as skipped"
report_has 'any(f["path"] == "canary.py" for f in r["findings"])' || fail "the canary's finding is missing"

# 2. FIFOs where git metadata is expected.
for fifo in .git/index .gitignore .git/info/exclude; do
  new_repo
  rm -f "$fifo"
  mkdir -p "$(dirname "$fifo")"
  mkfifo "$fifo"
  scan .
  report_has 'any(f["path"] == "canary.py" for f in r["findings"])' || fail "$fifo as a FIFO: the canary's finding is missing"
  case $fifo in
  .git/index) report_has 'any(d["code"] == "unreadable-git-index" for d in r["diagnostics"])' ||
    fail "a FIFO index is not named in a warning" ;;
  .gitignore) report_has 'any(d["code"] == "unreadable-ignore-file" and d["path"] == ".gitignore" for d in r["diagnostics"])' ||
    fail "a FIFO .gitignore is not named in a warning" ;;
  esac
done

# 3. A .git file that points at a FIFO, or nowhere: not a repository.
for target in "$WORK/fifo" /nonexistent; do
  rm -rf "$WORK/tree" "$WORK/fifo" && mkdir -p "$WORK/tree" && mkfifo "$WORK/fifo"
  printf 'gitdir: %s\n' "$target" >"$WORK/tree/.git"
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$WORK/tree/canary.py"
  cd "$WORK/tree"
  scan .
  report_has 'any(f["path"] == "canary.py" for f in r["findings"])' || fail "gitdir: $target: the canary's finding is missing"
done
echo "PASS: hostile git metadata neither leads the scan out of the tree nor blocks it"
