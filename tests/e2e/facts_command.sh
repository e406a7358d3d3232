#!/usr/bin/env bash
# `mpsaudit facts FILE...` prints what rules see: each file's kind and facts
# (kind, name, span, guard, arguments, attributes) as one JSON array, for a
# Python file, a notebook and a CUDA file (through the parse worker); a
# missing file is named on stderr and exits 3, the others still printed.
set -euo pipefail
binary=$(realpath "$1") root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >"$work/model.py" <<'PY'
import torch
try:
    import flash_attn
except ImportError:
    flash_attn = None
x = torch.zeros(3).cuda()
PY
# A near case: the same call guarded by an availability test.
cat >"$work/guarded.py" <<'PY'
import torch
if torch.cuda.is_available():
    x = torch.zeros(3).cuda()
PY
cd "$work"
"$binary" facts model.py guarded.py "$root/samples/cuda-extension/csrc/fused_ops_cuda.cu" >facts.json
python3 - facts.json <<'PY' || fail "facts output"
import json, sys
files = json.load(open(sys.argv[1]))
assert [f["path"] for f in files][:2] == ["model.py", "guarded.py"], [f["path"] for f in files]
model, guarded, cuda = files
assert model["kind"] == "python" and model["mode"] == "ast"
facts = [(f["kind"], f["name"], f.get("guard")) for f in model["facts"]]
assert ("import", "flash_attn", "import-fallback") in facts, facts
assert ("call", "?.cuda", None) in facts, facts
first = model["facts"][0]
assert list(first)[:2] == ["kind", "name"] and first["span"]["line"] == 1, first
dot_cuda = [f for f in guarded["facts"] if f["name"] == "?.cuda"]
assert dot_cuda and dot_cuda[0]["guard"] == "cuda-check", dot_cuda
assert cuda["kind"] == "cuda" and any(f["kind"] == "cuda-kernel" for f in cuda["facts"]), cuda["kind"]
PY
set +e
"$binary" facts missing.py model.py >out.json 2>err.txt
status=$?
set -e
[[ $status -eq 3 ]] || fail "a missing file exits $status, not 3"
grep -q "missing.py" err.txt || fail "the missing file is not named: $(cat err.txt)"
python3 -c "import json,sys; f=json.load(open('out.json')); assert [x['path'] for x in f] == ['model.py'], f" ||
  fail "the readable file is not printed"
echo "facts: Python, guarded Python and CUDA files as rules see them; a missing file exits 3"
