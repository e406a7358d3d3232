#!/usr/bin/env bash
# Scanning a git repository must never run a command that the repository's
# own configuration names (docs/security.md, "File enumeration and git").
# The repository here sets each of these to a script that leaves a marker:
#   core.fsmonitor, a clean/smudge filter for every file (.gitattributes),
#   diff.external, a textconv driver, core.pager, core.editor,
#   core.sshCommand, gpg.program, credential.helper, and every hook (through
#   core.hooksPath and .git/hooks).
# First, plain git is shown to run them (so the markers do work), then scan,
# fix (diff, and --apply on a copy), baseline write, scan --staged and
# scan --changed-since HEAD run on it, with modified, staged and untracked
# files and with none; no marker may appear, and the changed files must
# still be found.
# Usage: git_config_commands.sh <mpsaudit binary> <source dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../git_sandbox.bash" "$1"
mkdir -p "$WORK/markers" "$WORK/bin"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }

# One marker-writing script per configured command.
for name in fsmonitor clean smudge process external textconv pager editor ssh gpg credential hook; do
  printf '#!/bin/sh\ntouch "%s/%s"\ncat >/dev/null 2>&1 || true\n' "$WORK/markers" "$name" >"$WORK/bin/$name"
  chmod +x "$WORK/bin/$name"
done
markers() { ls "$WORK/markers"; }
no_markers() { # what just ran
  [ -z "$(markers)" ] || fail "$1 ran a command from the repository's configuration: $(markers | tr '\n' ' ')"
}

# A repository with a commit, then: a modified file, a staged one, an
# untracked one, a staged file reverted in the work tree, an ignored one.
make_repo() { # dir, with-changes (yes/no)
  git init -q -b main "$1"
  (
    cd "$1"
    git config user.email lab@example.org
    git config user.name "A Lab"
    printf 'import torch\nm = torch.nn.Linear(2, 2)\n' >model.py
    printf 'import torch\nx = torch.zeros(1)\n' >staged.py
    printf 'import torch\ny = torch.zeros(1)\n' >reverted.py
    printf 'import torch\nz = torch.zeros(1)\n' >stable.py
    printf 'ignored.py\n' >.gitignore
    git add -A
    git commit -q -m start
    if [ "$2" = yes ]; then
      printf 'import torch\nm = torch.nn.Linear(2, 2).cuda()\n' >model.py
      printf 'import torch\nx = torch.zeros(1).cuda()\n' >staged.py
      git add staged.py
      printf 'import torch\ny = torch.zeros(1).cuda()\n' >reverted.py
      git add reverted.py
      printf 'import torch\ny = torch.zeros(1)\n' >reverted.py # back to HEAD's content
      printf 'import torch\nu = torch.zeros(1).cuda()\n' >untracked.py
      printf 'import torch\nw = torch.zeros(1).cuda()\n' >ignored.py
    fi
    # Now the hostile configuration: nothing below runs while it is written.
    git config core.fsmonitor "$WORK/bin/fsmonitor"
    git config filter.x.clean "$WORK/bin/clean"
    git config filter.x.smudge "$WORK/bin/smudge"
    git config filter.x.required true
    git config filter.y.process "$WORK/bin/process"
    git config diff.external "$WORK/bin/external"
    git config diff.x.textconv "$WORK/bin/textconv"
    git config core.pager "$WORK/bin/pager"
    git config pager.diff "$WORK/bin/pager"
    git config core.editor "$WORK/bin/editor"
    git config core.sshCommand "$WORK/bin/ssh"
    git config gpg.program "$WORK/bin/gpg"
    git config credential.helper "!$WORK/bin/credential"
    git config core.hooksPath "$WORK/hooks"
    printf '* filter=x diff=x\n*.md filter=y\n' >.gitattributes
    printf '* filter=x diff=x\n' >.git/info/attributes
    mkdir -p "$WORK/hooks"
    for hook in pre-commit post-checkout post-index-change reference-transaction fsmonitor-watchman \
      pre-auto-gc post-rewrite; do
      cp "$WORK/bin/hook" "$WORK/hooks/$hook"
      cp "$WORK/bin/hook" ".git/hooks/$hook"
    done
  )
}

make_repo "$WORK/repo" yes
make_repo "$WORK/clean-repo" no

# The markers work: plain git runs what the configuration names.
cp -a "$WORK/repo" "$WORK/probe"
(
  cd "$WORK/probe"
  git ls-files --cached --others --exclude-standard >/dev/null 2>&1 || true
  [ -e "$WORK/markers/fsmonitor" ] || fail "sanity: git ls-files did not run core.fsmonitor"
  git diff HEAD >/dev/null 2>&1 || true
  [ -e "$WORK/markers/clean" ] || fail "sanity: git diff HEAD did not run the clean filter"
  [ -e "$WORK/markers/external" ] || fail "sanity: git diff HEAD did not run diff.external"
  git diff --no-ext-diff HEAD >/dev/null 2>&1 || true
  [ -e "$WORK/markers/textconv" ] || fail "sanity: git diff did not run the textconv driver"
  git checkout -q HEAD -- stable.py >/dev/null 2>&1 || true
  [ -e "$WORK/markers/smudge" ] || fail "sanity: git checkout did not run the smudge filter"
  git commit -q --allow-empty -m probe >/dev/null 2>&1 || true
  [ -e "$WORK/markers/hook" ] || fail "sanity: git commit did not run the hooks"
)
rm -rf "$WORK/probe" "$WORK/markers"/*

# run <dir> <expected exit codes> <args...>: JSON report of a scan in $WORK/report.json.
run() {
  local dir=$1 expected=$2
  shift 2
  local code=0
  (cd "$dir" && "$BIN" "$@") >"$WORK/out" 2>"$WORK/err" || code=$?
  case " $expected " in
  *" $code "*) ;;
  *) cat "$WORK/out" "$WORK/err" >&2; fail "mpsaudit $* in $dir exited $code, expected $expected" ;;
  esac
  no_markers "mpsaudit $*"
}
scanned() { python3 -c 'import json, sys; print(" ".join(sorted(f["path"] for f in json.load(open(sys.argv[1]))["files"])))' "$1"; }
expect_files() { # report, expected space-separated paths
  local got
  got=$(scanned "$1")
  [ "$got" = "$2" ] || fail "$3: scanned '$got', expected '$2'"
}

for repo in repo clean-repo; do
  dir="$WORK/$repo"
  run "$dir" "0 1" scan . --no-config --format json -o "$WORK/full.json"
  run "$dir" "0 1" scan . --no-config
  run "$dir" "0 1" fix . --no-config
  run "$dir" "0 1" baseline write "$WORK/baseline" . --no-config
  run "$dir" "0 1" scan . --no-config --staged --format json -o "$WORK/staged.json"
  run "$dir" "0 1" scan . --no-config --changed-since HEAD --format json -o "$WORK/changed.json"
  run "$dir" "0 1" scan --no-config --format json -o "$WORK/named.json" model.py stable.py
  cp -a "$dir" "$WORK/copy"
  run "$WORK/copy" "0" fix . --no-config --apply
  run "$WORK/copy" "0 1" fix . --no-config --apply --changed-since HEAD
  rm -rf "$WORK/copy"
  if [ "$repo" = repo ]; then
    expect_files "$WORK/full.json" "model.py reverted.py stable.py staged.py untracked.py" "full scan"
    expect_files "$WORK/staged.json" "reverted.py staged.py" "--staged"
    # reverted.py is staged, but its work tree content is HEAD's again.
    expect_files "$WORK/changed.json" "model.py staged.py untracked.py" "--changed-since HEAD"
  else
    expect_files "$WORK/full.json" "model.py reverted.py stable.py staged.py" "full scan"
    expect_files "$WORK/staged.json" "" "--staged"
    expect_files "$WORK/changed.json" "" "--changed-since HEAD"
  fi
  expect_files "$WORK/named.json" "model.py stable.py" "files named on the command line"
done

# fix --apply on a copy wrote the fix without running anything.
cp -a "$WORK/repo" "$WORK/applied"
run "$WORK/applied" "0" fix . --no-config --apply
grep -q 'to(device)' "$WORK/applied/model.py" || fail "fix --apply did not rewrite model.py"
echo "PASS: no command from the repository's git configuration ran; changed files were found"
