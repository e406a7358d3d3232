#!/usr/bin/env bash
# `fix --apply` on a disk that fills up: the file whose write fails keeps its
# text, no temporary file is left, the exit status is 3, and the summary
# counts only the file really written ("Fixed 1 finding in 1 file; 1 file
# not written"), not every file fix meant to write.
# The disk is a small tmpfs where `mount` works (root); elsewhere a file size
# limit (ulimit -f) fails the write the same way (EFBIG for ENOSPC).
set -euo pipefail
binary=$1
work=$(mktemp -d)
mounted=false
cleanup() {
  if $mounted; then umount "$work/disk" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/disk"
# 56 KiB: room for both files and the small one's new copy, not for the big one's.
if [[ $(id -u) -eq 0 ]] && mount -t tmpfs -o size=56k tmpfs "$work/disk" 2>/dev/null; then
  mounted=true
fi
tree=$work/disk
printf 'import torch\nx = torch.zeros(3).cuda()\n' >"$tree/a_small.py"
python3 - "$tree/b_big.py" <<'EOF'
import sys
lines = ["import torch"] + ["v%04d = torch.zeros(3).cuda()  # %s" % (i, "." * 8) for i in range(1000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
EOF
cp "$tree/b_big.py" "$work/b_big.orig"

status=0
if $mounted; then
  "$binary" fix --apply --no-git "$tree" >/dev/null 2>"$work/err" || status=$?
else
  (
    trap '' XFSZ
    ulimit -f 20 # KiB: the big file's new text does not fit
    exec "$binary" fix --apply --no-git "$tree"
  ) >/dev/null 2>"$work/err" || status=$?
fi
[[ $status -eq 3 ]] || fail "a failed write must exit 3, got $status: $(cat "$work/err")"
cmp -s "$tree/b_big.py" "$work/b_big.orig" || fail "the file whose write failed was changed"
grep -q 'to(device)' "$tree/a_small.py" || fail "the small file was not written"
grep -q 'b_big.py: error: cannot write the fixed file' "$work/err" || fail "no diagnostic: $(cat "$work/err")"
grep -q '^Fixed 1 finding in 1 file .*; 1 file not written' "$work/err" ||
  fail "the summary counts files that were not written: $(tail -1 "$work/err")"
leftovers=$(find "$tree" -name '.mpsaudit-fix-*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
echo "ok"
