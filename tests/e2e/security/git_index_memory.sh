#!/usr/bin/env bash
# A repository's .git/index is read in-process and is attacker-controlled
# (docs/security.md, "File enumeration and git"). Attacks: an honest but
# large index cost 2.6 times its size (the whole file, then a string per
# path and per object id); a version 4 index, whose paths are the previous
# path plus a suffix, expanded 3 MB into a gigabyte of paths. Promise: the
# index is read through a window and its paths kept in shared blocks, so a
# 33 MB index (300,000 entries) costs at most 1.6 times its size on top of
# the scan's own memory (measured: 1.3), and a version 4 index whose paths
# would take more than 8 times its size is refused with a warning
# (unreadable-git-index), the tree then listed without git's view.
# Peak RSS is measured with getrusage(RUSAGE_CHILDREN).
# Usage: git_index_memory.sh <mpsaudit binary> <source dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }

# Under AddressSanitizer every allocation carries redzones: bounds scaled.
scale=1
if grep -qa __asan_init "$BIN"; then
  scale=4
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
fi

# write_index FILE VERSION COUNT: an index as git writes it (entries sorted
# by path, NUL-padded to 8 bytes in versions 2 and 3, prefix-compressed in
# 4, SHA-1 trailer). Version 2: 300,000 distinct paths of about 45 bytes.
# Version 4: each path is the previous one plus one byte, so COUNT entries
# of 65 bytes expand to COUNT^2/2 bytes of paths.
write_index() {
  python3 - "$@" <<'PY'
import hashlib, struct, sys
out, version, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
oid = bytes.fromhex("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
def fixed(path):
    return struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0) + oid + struct.pack(">H", min(len(path), 0xFFF))
body = [b"DIRC" + struct.pack(">II", version, count)]
if version == 2:
    paths = sorted(b"src/module_%03d/subpackage_%04d/file_%06d.py" % (i % 1000, i % 7919, i) for i in range(count))
    for path in paths:
        entry = fixed(path) + path
        body.append(entry + b"\0" * (8 - len(entry) % 8))
else:
    path = b""
    for i in range(count):
        path += b"a"
        body.append(fixed(path) + b"\0" + b"a\0")  # strip nothing, add one byte
data = b"".join(body)
open(out, "wb").write(data + hashlib.sha1(data).digest())
PY
}

# peak_rss TREE [scan options...]: the scan's peak RSS in KiB on stdout.
peak_rss() {
  python3 - "$BIN" "$@" <<'PY'
import resource, subprocess, sys
binary, tree, options = sys.argv[1], sys.argv[2], sys.argv[3:]
run = subprocess.run([binary, "scan", tree, "--no-config", "--format", "json", "--fail-on", "never", "-o",
                      tree + "/../report.json"] + options, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     timeout=120)
if run.returncode not in (0, 3):
    sys.exit(f"FAIL: the scan exited {run.returncode}: {run.stderr.decode()[-2000:]}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

make_repo() { # directory
  git init -q -b main "$1"
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$1/train.py"
}

# 1. An honest 33 MB index: its entries are read (the scan lists the one
# that is on disk) at no more than 1.6 times the index's size.
make_repo "$WORK/large"
write_index "$WORK/large/.git/index" 2 300000
index_kib=$(( $(stat -c %s "$WORK/large/.git/index") / 1024 ))
baseline=$(peak_rss "$WORK/large" --no-git)
with_index=$(peak_rss "$WORK/large")
python3 - "$WORK/report.json" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
codes = [d["code"] for d in report["diagnostics"]]
if "unreadable-git-index" in codes or "no-git-index" in codes:
    sys.exit(f"FAIL: the large index was not read: {codes}")
if [f["path"] for f in report["files"]] != ["train.py"]:
    sys.exit(f"FAIL: files {[f['path'] for f in report['files']]}, want train.py only")
PY
cost=$(( with_index - baseline ))
bound=$(( index_kib * 16 / 10 * scale ))
echo "index ${index_kib} KiB: peak RSS ${with_index} KiB, ${baseline} KiB without git: +${cost} KiB (bound ${bound})"
[ "$cost" -le "$bound" ] || fail "the index cost ${cost} KiB, more than 1.6 times its ${index_kib} KiB"

# 2. A version 4 index of 46,000 entries (3 MB) whose paths would expand to
# about a gigabyte: refused early, and the tree listed without git's view.
make_repo "$WORK/expanding"
write_index "$WORK/expanding/.git/index" 4 46000
peak=$(peak_rss "$WORK/expanding")
python3 - "$WORK/report.json" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
warned = [d for d in report["diagnostics"] if d["code"] == "unreadable-git-index"]
if not warned or "expand past 8 times" not in warned[0]["message"]:
    sys.exit(f"FAIL: no unreadable-git-index warning about the expansion: {report['diagnostics']}")
if not any(f["path"] == "train.py" for f in report["findings"]):
    sys.exit("FAIL: train.py's finding is missing")
PY
[ "$peak" -le $(( 200 * 1024 * scale )) ] || fail "the expanding index took ${peak} KiB, over 200 MiB"
echo "PASS: a large index costs ${cost} KiB for ${index_kib} KiB; an expanding one is refused at ${peak} KiB peak"
