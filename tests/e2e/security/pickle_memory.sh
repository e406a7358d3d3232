#!/usr/bin/env bash
# Memory amplification: 19.9 million one-byte opcodes (EMPTY_LIST, MARK,
# EMPTY_LIST+APPEND, NONE+MEMOIZE, NONE) in deflated checkpoints of about 20 kB each, each
# ending in a posix.system call. Unbounded, one took 3.7 GB (7.3 GB at
# -j 2). The reader's memory is bounded in bytes (64 MiB per pickle): peak
# RSS, measured here with getrusage(RUSAGE_CHILDREN), must stay under the
# bound, each file must get a checkpoint-memory-limit diagnostic, and the
# call after the bound must still yield MPS964. Nothing may run.
# (docs/security.md, section "Checkpoints and pickles")
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

pickle_tree memory >/dev/null

# Under AddressSanitizer (scripts/sanitize) every allocation carries
# redzones and shadow memory: the bound is scaled, still far below 3.7 GB.
scale=1
if grep -qa __asan_init "$binary"; then
  scale=4
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
fi

measure() { # jobs, bound in MiB
  python3 - "$binary" "$work/tree" "$1" "$2" "$scale" <<'PY'
import json, platform, resource, subprocess, sys
binary, tree, jobs, bound, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
run = subprocess.run([binary, "scan", "--no-git", "--format", "json", "-j", jobs, tree],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if run.returncode != 1:
    sys.exit(f"FAIL: -j {jobs}: the scan exited {run.returncode}, not 1: {run.stderr.decode()[-2000:]}")
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
peak_mib = peak / (1 << 20) if platform.system() == "Darwin" else peak / 1024  # bytes there, KiB here
if peak_mib > bound * scale:
    sys.exit(f"FAIL: -j {jobs}: peak RSS {peak_mib:.0f} MiB, over the bound of {bound * scale} MiB")
report = json.loads(run.stdout)
hostile = {f["path"]: f["message"] for f in report["findings"] if f["rule"] == "MPS964"}
limited = {d["path"] for d in report["diagnostics"] if d["code"] == "checkpoint-memory-limit"}
want = {"lists.pt": "posix.system", "appends.pt": "posix.system", "marks.pt": "posix.system",
        "memo.pt": "posix.system",
        "stacked.pt": "STACK_GLOBAL on computed names"}
for name, text in want.items():
    if text not in hostile.get(name, ""):
        sys.exit(f"FAIL: -j {jobs}: {name}: no MPS964 naming {text!r} (findings: {hostile})")
    if name not in limited:
        sys.exit(f"FAIL: -j {jobs}: {name}: no checkpoint-memory-limit diagnostic")
print(f"-j {jobs}: peak RSS {peak_mib:.0f} MiB (bound {bound * scale} MiB), all five reported")
PY
}
# One pickle at a time: 64 MiB for the reader plus the scanner's own.
measure 1 160
# Two at once: two readers.
measure 2 256
no_payload_ran
