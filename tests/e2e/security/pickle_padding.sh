#!/usr/bin/env bash
# A data.pkl past the 256 MiB scan limit (sparse files, so the test stays
# cheap): a zip entry that only claims 300 MiB, a real 300 MiB entry padded
# after STOP, and a pickle that names posix.system, then carries 300 MiB of
# bytes, then calls it (in a zip and as a plain pickle). Each must yield
# MPS964 for the GLOBAL found before the limit, plus a checkpoint-scan-limit
# diagnostic saying the rest was not read; nothing may run.
# (docs/security.md, section "Checkpoints and pickles")
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

pickle_tree padding

# 3: part of a pickle could not be scanned (padded_inside, padded_plain).
scan_pickles 3

python3 - "$work/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
hostile = {f["path"]: f["message"] for f in report["findings"] if f["rule"] == "MPS964"}
limits = {d["path"]: d["level"] for d in report["diagnostics"] if d["code"] == "checkpoint-scan-limit"}
# After STOP the unpickler reads nothing: a note. Inside the pickle the rest
# could hold more: an error.
want = {"claims_300mib.pt": "note", "padded_after_stop.pt": "note", "padded_inside.pt": "error",
        "padded_plain.pt": "error"}
for name, level in want.items():
    if "posix.system" not in hostile.get(name, ""):
        sys.exit(f"FAIL: {name}: no MPS964 naming posix.system (findings: {hostile})")
    if limits.get(name) != level:
        sys.exit(f"FAIL: {name}: checkpoint-scan-limit {limits.get(name)!r}, want {level!r}")
print("padded pickles reported with their scan-limit diagnostics")
PY
