#!/usr/bin/env bash
# `fix --apply` keeps what it does not mean to change (docs/fix.md, "Writing
# files"; docs/security.md, "fix --apply"):
#   - owner, group and mode (run as root, the file owned by uid 1234 stays
#     so, with its set-group-ID bit);
#   - a read-only (0444) file is not edited, with a note;
#   - a hard-linked file is not edited (the links are not split), with a warning;
#   - an in-tree symlink stays a symlink, its target edited;
#   - the new text is synced before the rename (strace, where it exists).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"
finding='import torch\nx = torch.zeros(3).cuda()\n'

# Owner, group and mode.
mkdir -p "$work/owned"
printf "$finding" >"$work/owned/train.py"
if [[ $(id -u) -eq 0 ]]; then
  chown 1234:1234 "$work/owned/train.py"
  expected_owner=1234:1234
else
  expected_owner=$(stat -c %u:%g "$work/owned/train.py")
fi
chmod 2754 "$work/owned/train.py" # after chown, which clears it
fix_apply "$work/owned" --no-git
[[ $status -eq 0 ]] || fail "fix exited $status: $(cat "$work/err")"
grep -q 'to(device)' "$work/owned/train.py" || fail "train.py was not fixed"
[[ $(stat -c %u:%g "$work/owned/train.py") == "$expected_owner" ]] ||
  fail "owner changed: $(stat -c %u:%g "$work/owned/train.py"), expected $expected_owner"
[[ $(stat -c %a "$work/owned/train.py") == 2754 ]] || fail "mode changed: $(stat -c %a "$work/owned/train.py")"

# A read-only file: skipped with a note, exit 0, the summary counts nothing.
mkdir -p "$work/readonly"
printf "$finding" >"$work/readonly/frozen.py"
cp "$work/readonly/frozen.py" "$work/frozen.orig"
chmod 444 "$work/readonly/frozen.py"
fix_apply "$work/readonly" --no-git
[[ $status -eq 0 ]] || fail "a read-only file must not fail the run, got $status: $(cat "$work/err")"
cmp -s "$work/readonly/frozen.py" "$work/frozen.orig" || fail "the read-only file was rewritten"
[[ $(stat -c %a "$work/readonly/frozen.py") == 444 ]] || fail "the read-only file's mode changed"
grep -q 'frozen.py: note: read-only file; fix does not edit it' "$work/err" || fail "no note: $(cat "$work/err")"
grep -q '^Fixed 0 findings in 0 files .*1 file not written' "$work/err" || fail "summary: $(cat "$work/err")"

# A hard-linked file: neither split nor changed under its other name.
mkdir -p "$work/linked"
printf "$finding" >"$work/linked/a.py"
ln "$work/linked/a.py" "$work/other-name.py"
inode=$(stat -c %i "$work/linked/a.py")
fix_apply "$work/linked" --no-git
[[ $status -eq 0 ]] || fail "a hard-linked file must not fail the run, got $status: $(cat "$work/err")"
[[ $(stat -c %i "$work/linked/a.py") == "$inode" && $(stat -c %h "$work/linked/a.py") == 2 ]] ||
  fail "the hard link was split"
! grep -q 'to(device)' "$work/other-name.py" || fail "the file was edited under its other name"
grep -q 'a.py: warning: the file has 2 hard links; fix does not edit it' "$work/err" ||
  fail "no warning: $(cat "$work/err")"

# An in-tree symlink stays a symlink; its target is edited.
mkdir -p "$work/link/src"
printf "$finding" >"$work/link/src/impl.py"
ln -s src/impl.py "$work/link/model.py"
fix_apply "$work/link" --no-git
[[ -L "$work/link/model.py" && $(readlink "$work/link/model.py") == src/impl.py ]] ||
  fail "the symlink was replaced"
grep -q 'to(device)' "$work/link/src/impl.py" || fail "the symlink's target was not fixed"

# fsync before rename.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  mkdir -p "$work/synced"
  printf "$finding" >"$work/synced/s.py"
  # LeakSanitizer refuses to run under ptrace (and aborts with abort_on_error);
  # the untraced runs above still check for leaks.
  env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -e trace=fsync,fdatasync,rename,renameat,renameat2 -o "$work/trace" \
    "$binary" fix --apply --no-git "$work/synced" >/dev/null 2>&1
  python3 - "$work/trace" <<'EOF' || fail "the fixed file was not synced before its rename: $(cat "$work/trace")"
import re, sys
# With more than one thread, strace splits a call that another thread
# interrupts into "fsync(6 <unfinished ...>" and "<... fsync resumed>) = 0";
# the halves are joined, and the call counts where it returns.
calls, pending = [], {}
for line in open(sys.argv[1]):
    pid, _, call = line.rstrip('\n').partition(' ')
    call = call.lstrip()
    if call.endswith('<unfinished ...>'):
        pending[pid] = call[:-len('<unfinished ...>')]
        continue
    resumed = re.match(r'<\.\.\. \w+ resumed>(.*)', call)
    if resumed:
        call = pending.pop(pid, '') + resumed.group(1)
    calls.append(call)
renames = [i for i, c in enumerate(calls) if c.startswith('rename') and 's.py' in c and '= 0' in c]
syncs = [i for i, c in enumerate(calls) if c.startswith(('fsync', 'fdatasync')) and '= 0' in c]
sys.exit(0 if renames and any(s < renames[0] for s in syncs) else 1)
EOF
fi
echo "ok"
