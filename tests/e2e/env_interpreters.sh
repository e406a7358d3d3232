#!/usr/bin/env bash
# mpsaudit env with real interpreters of this machine: Debian's python3 with
# python3-torch (scripts/setup --test), a venv of it without torch, a missing
# interpreter, one that hangs, a Jupyter kernel, and an imported record. Every
# JSON record is checked against docs/env-record.schema.json.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
torch_python=/usr/bin/python3
"$torch_python" -c 'import torch, jsonschema' 2>/dev/null ||
  fail "$torch_python needs python3-torch and python3-jsonschema (scripts/setup --test)"
validate() { # validate FILE: the record matches the schema
  "$torch_python" - "$root/docs/env-record.schema.json" "$1" <<'PY' || fail "$1 does not match the schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}
field() { # field FILE PYTHON-EXPRESSION-ON-d
  "$torch_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# An interpreter with torch: exit 0, the facts of Debian's build.
status=0
PYTORCH_ENABLE_MPS_FALLBACK=1 PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 \
  "$binary" env --python "$torch_python" -o "$work/torch.json" >"$work/torch.txt" || status=$?
[[ $status -eq 0 ]] || fail "an interpreter with torch exits $status, want 0"
validate "$work/torch.json"
[[ $(field "$work/torch.json" 'd["interpreters"][0]["status"]') == ok ]] || fail "status is not ok"
[[ $(field "$work/torch.json" 'd["interpreters"][0]["torch"]["version"][:4]') == 1.13 ]] || fail "torch version"
[[ $(field "$work/torch.json" 'd["interpreters"][0]["torch"]["mps_built"]') == False ]] || fail "mps_built"
[[ $(field "$work/torch.json" 'd["interpreters"][0]["torch"]["mps_available"]') == False ]] || fail "mps_available"
[[ $(field "$work/torch.json" 'd["interpreters"][0]["variables"]["PYTORCH_MPS_HIGH_WATERMARK_RATIO"]') == 0.0 ]] ||
  fail "PYTORCH_MPS_* not recorded"
[[ $(field "$work/torch.json" '[x["code"] for x in d["disagreements"]]') == "['mps-fallback-set']" ]] ||
  fail "the fallback variable is not flagged"
grep -q 'MPS: built: no, available: no' "$work/torch.txt" || fail "text output lacks the MPS facts"

# Without torch, missing, hanging: exit 3, one clear error each.
"$torch_python" -m venv --without-pip "$work/venv"
mkdir -p "$work/hang" && printf '#!/bin/sh\nsleep 600\n' >"$work/hang/python" && chmod +x "$work/hang/python"
status=0
"$binary" env --python "$work/venv/bin/python" --python "$work/missing/bin/python" --python "$work/hang/python" \
  --timeout 2 --format json >"$work/broken.json" || status=$?
[[ $status -eq 3 ]] || fail "broken interpreters exit $status, want 3"
validate "$work/broken.json"
[[ $(field "$work/broken.json" '[i["status"] for i in d["interpreters"]]') == "['no-torch', 'not-found', 'timeout']" ]] ||
  fail "statuses: $(field "$work/broken.json" '[i["status"] for i in d["interpreters"]]')"
field "$work/broken.json" 'd["interpreters"][0]["error"]' | grep -q "cannot import torch" || fail "no-torch error"
field "$work/broken.json" 'd["interpreters"][2]["error"]' | grep -q "did not answer within 2 s" || fail "timeout error"
pgrep -f "$work/hang/python" >/dev/null && fail "the hanging interpreter was left running"

# Two interpreters with different torch: the venv has none, so the probe's
# LibTorch supplies the other version.
printf '{"environment": {"libtorch_version": "2.4.0", "mps_built": true, "mps_available": true, "variables": {}}}' \
  >"$work/probe.json"
"$binary" env --python "$torch_python" --probe-report "$work/probe.json" -o "$work/probe-record.json" >/dev/null
validate "$work/probe-record.json"
codes=$(field "$work/probe-record.json" 'sorted(x["code"] for x in d["disagreements"])')
[[ $codes == "['mps-not-built', 'torch-version-differs']" ]] || fail "disagreements with the probe: $codes"

# A Jupyter kernel whose kernel.json sets the fallback variable.
mkdir -p "$work/jupyter/kernels/lab"
printf '{"argv": ["%s", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "env": {"PYTORCH_ENABLE_MPS_FALLBACK": "1"}}' \
  "$torch_python" >"$work/jupyter/kernels/lab/kernel.json"
JUPYTER_PATH=$work/jupyter "$binary" env --kernel lab --format json >"$work/kernel.json"
validate "$work/kernel.json"
[[ $(field "$work/kernel.json" 'd["interpreters"][0]["variables"]["PYTORCH_ENABLE_MPS_FALLBACK"]') == 1 ]] ||
  fail "the kernel's env is not seen"
status=0; "$binary" env --kernel no-such-kernel >/dev/null || status=$?
[[ $status -eq 3 ]] || fail "a missing kernel exits $status, want 3"

# The script, printed and run by hand (as in a notebook cell), then imported.
"$binary" env --print-script >"$work/query.py"
cmp -s "$work/query.py" "$root/analyzer/acceptance/env_query.py" || fail "--print-script differs from env_query.py"
(cd "$work" && "$torch_python" query.py >"$work/cell-output.txt")
"$binary" env --import "$work/cell-output.txt" --format json >"$work/imported.json"
validate "$work/imported.json"
[[ $(field "$work/imported.json" 'd["interpreters"][0]["source"]') == imported ]] || fail "import source"

# The macOS branch of the script, on this Linux machine: platform and sysctl
# answers of an x86_64 Python under Rosetta on an M1, with the ctypes call
# (darwin_sysctl) replaced. The real call is exercised only on a Mac.
"$torch_python" - "$work/query.py" <<'PY' || fail "the script's macOS branch"
import contextlib, io, platform, sys
namespace = {"__name__": "env_query"}
with contextlib.redirect_stdout(io.StringIO()):
    exec(open(sys.argv[1]).read(), namespace)  # runs main() once; its output is dropped
answers = {"machdep.cpu.brand_string": "Apple M1", "sysctl.proc_translated": 1, "hw.optional.arm64": 1}
namespace["darwin_sysctl"] = lambda name, integer: answers[name]
platform.system = lambda: "Darwin"
platform.machine = lambda: "x86_64"
platform.mac_ver = lambda: ("14.4.1", ("", "", ""), "x86_64")
facts = namespace["platform_facts"]()
assert facts == {"system": "Darwin", "machine": "x86_64", "native_machine": "arm64", "os_version": "14.4.1",
                 "chip": "Apple M1", "rosetta": True, "errors": []}, facts
answers["sysctl.proc_translated"] = None  # Intel Mac: the call fails, no translation exists
answers["hw.optional.arm64"] = None
facts = namespace["platform_facts"]()
assert facts["rosetta"] is False and facts["native_machine"] == "x86_64", facts
PY

status=0; "$binary" env --timeout zero >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "a bad --timeout exits $status, want 2"
echo "env interpreters: ok"
