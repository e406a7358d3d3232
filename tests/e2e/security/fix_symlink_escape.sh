#!/usr/bin/env bash
# `fix --apply` never writes or reads outside the scanned tree through a
# symlink the tree plants (docs/security.md, "fix --apply"):
#   - a symlink under the old fixed temporary name (`x.py.mpsaudit-fix`)
#     pointing at a victim file: the victim keeps its text and mode;
#   - a source file that is a symlink to a file outside the tree: not read,
#     not edited, reported;
#   - a directory on a file's path that is a symlink out of the tree (a git
#     index that lists `sub/x.py` while `sub` links elsewhere): the same;
#   - symlinks inside the tree: the target is edited once, the links stay.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"
finding='import torch\nx = torch.zeros(3).cuda()\n'

# 1. A planted symlink where fix used to put its temporary file.
mkdir -p "$work/victims" "$work/tree1"
printf 'MARKER\n' >"$work/victims/evil.pth"
chmod 600 "$work/victims/evil.pth"
printf "$finding" >"$work/tree1/x.py"
ln -s "$work/victims/evil.pth" "$work/tree1/x.py.mpsaudit-fix"
fix_apply "$work/tree1" --no-git
[[ $status -eq 0 ]] || fail "fix exited $status: $(cat "$work/err")"
[[ $(cat "$work/victims/evil.pth") == MARKER ]] || fail "the victim behind the planted symlink was written"
[[ $(stat -c %a "$work/victims/evil.pth") == 600 ]] || fail "the victim's mode was changed through the link"
[[ -L "$work/tree1/x.py.mpsaudit-fix" ]] || fail "the planted symlink was replaced"
grep -q 'to(device)' "$work/tree1/x.py" || fail "x.py was not fixed"
grep -q '^Fixed 1 finding in 1 file' "$work/err" || fail "summary: $(cat "$work/err")"
leftovers=$(find "$work/tree1" -name '.mpsaudit-fix-*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"

# 2. A source file that is a symlink to a file outside the tree.
mkdir -p "$work/tree2"
printf "$finding" >"$work/victims/outside.py"
cp "$work/victims/outside.py" "$work/victims/outside.py.orig"
ln -s "$work/victims/outside.py" "$work/tree2/evil.py"
printf "$finding" >"$work/tree2/ok.py"
fix_apply "$work/tree2" --no-git
cmp -s "$work/victims/outside.py" "$work/victims/outside.py.orig" || fail "a file outside the tree was edited"
[[ -L "$work/tree2/evil.py" ]] || fail "the symlink to outside was replaced by a file"
grep -q 'evil.py: warning: a symbolic link leads outside the scanned tree' "$work/err" ||
  fail "the outside symlink was not reported: $(cat "$work/err")"
grep -q '^Fixed 1 finding in 1 file' "$work/err" || fail "summary: $(cat "$work/err")"
grep -q 'to(device)' "$work/tree2/ok.py" || fail "ok.py beside it was not fixed"
# Diff mode does not read it either.
status=0
"$binary" fix "$work/tree2" --no-git >"$work/out" 2>"$work/err" || status=$?
! grep -q 'evil.py' "$work/out" || fail "the diff shows the file outside the tree"

# 3. A directory on the path that the git index names is a symlink out.
if command -v git >/dev/null; then
  mkdir -p "$work/tree3/sub" "$work/victims/subdir"
  printf "$finding" >"$work/tree3/sub/x.py"
  printf "$finding" >"$work/victims/subdir/x.py"
  cp "$work/victims/subdir/x.py" "$work/victims/subdir.orig.py"
  git -C "$work/tree3" init -q
  git -C "$work/tree3" add sub/x.py
  rm -r "$work/tree3/sub"
  ln -s "$work/victims/subdir" "$work/tree3/sub"
  fix_apply "$work/tree3"
  cmp -s "$work/victims/subdir/x.py" "$work/victims/subdir.orig.py" ||
    fail "a file outside the tree was edited through a directory symlink"
  # Discovery never follows a directory symlink, also for paths the index
  # names: the entry is listed as skipped, with its reason, and fix never
  # sees the file behind it.
  "$binary" scan "$work/tree3" --format json >"$work/report.json" 2>/dev/null || true
  python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if {'path': 'sub', 'reason': 'symlink-directory'} in d['skipped'] else 1)" ||
    fail "the directory symlink was not reported: $(cat "$work/report.json")"
fi

# 4. Symlinks inside the tree: the target is edited once, the links stay.
mkdir -p "$work/tree4/lib"
printf "$finding" >"$work/tree4/lib/model.py"
ln -s lib/model.py "$work/tree4/a_link.py"
ln -s lib/model.py "$work/tree4/z_link.py"
fix_apply "$work/tree4" --no-git
[[ $status -eq 0 ]] || fail "fix exited $status: $(cat "$work/err")"
[[ -L "$work/tree4/a_link.py" && -L "$work/tree4/z_link.py" ]] || fail "an in-tree symlink became a file"
[[ $(grep -c 'to(device)' "$work/tree4/lib/model.py") -eq 1 ]] || fail "the target was not fixed exactly once"
[[ $(grep -c '^device = ' "$work/tree4/lib/model.py") -eq 1 ]] || fail "the module device was added twice"
grep -q '^Fixed 1 finding in 1 file' "$work/err" || fail "summary: $(cat "$work/err")"
# Only the links, no target in the scan: still once.
rm "$work/tree4/lib/model.py"
printf "$finding" >"$work/tree4/lib/model.txt"
ln -sf lib/model.txt "$work/tree4/a_link.py"
ln -sf lib/model.txt "$work/tree4/z_link.py"
fix_apply "$work/tree4" --no-git
[[ $(grep -c '^device = ' "$work/tree4/lib/model.txt") -eq 1 ]] || fail "a target of two links was edited twice"
[[ -L "$work/tree4/a_link.py" ]] || fail "an in-tree symlink became a file"
echo "ok"
