#!/usr/bin/env bash
# A repository's C/C++/CUDA files can #include any path. Before clang runs,
# the C++ front end reads the headers a file can reach to decide whether
# clang could add anything (docs/cxx-frontend.md); a header that says it is a
# regular file but never ends (/proc/kmsg blocks for root), a FIFO, a device
# or a link to one must not hang the scan: each is read no further than its
# size, as clang reads it, or not at all. docs/security.md, "C++ headers".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

tree=$work/repo && mkdir -p "$tree"
mkfifo "$tree/pipe.h"
ln -s /dev/zero "$tree/zero.h"
ln -s /proc/kmsg "$tree/kmsg.h"
printf '#include "/proc/kmsg"\n#include "kmsg.h"\n#include "pipe.h"\n#include "zero.h"\n#include "/dev/stdin"\n' >"$tree/hosts.h"
printf '#include "hosts.h"\nvoid host_only(float *x) { x[0] = 1.0f; }\n' >"$tree/host.cpp"
printf '#include "hosts.h"\nvoid launch(float *x) { x[0] = 2.0f; }\n' >"$tree/host.cu"
printf '#include "hosts.h"\n__global__ void k(float *x) { x[0] = 3.0f; }\nvoid run(float *x) { k<<<1, 1>>>(x); }\n' >"$tree/kernel.cu"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$tree/canary.py"

status=0
timeout 120 "$binary" scan --no-git --no-cache --format json -o "$work/report.json" "$tree" </dev/null \
  >"$work/out" 2>&1 || status=$?
[[ $status -ne 124 && $status -ne 137 ]] || fail "the scan did not finish within 120 s"
[[ $status -le 3 ]] || fail "scan exited $status: $(head -c 2000 "$work/out")"
python3 - "$work/report.json" <<'PY' || fail "the report lacks the kernel or the canary"
import json, sys
report = json.load(open(sys.argv[1]))
names = {(f["path"], f["rule"]) for f in report["findings"]}
assert any(path == "kernel.cu" for path, _ in names), names
assert any(path == "canary.py" for path, _ in names), names
PY
echo "ok: headers that never end are read no further than their size"
