#!/usr/bin/env bash
# Findings 11 and 16 of the security review (docs/security.md, "Suppression
# markers"): a suppression marker inside a string, a heredoc or a Markdown code
# span is data and silences nothing; near misses of the marker are reported as
# MPS002 and silence nothing either; real comments still suppress.
set -euo pipefail
binary=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

scan() { # tree; sets $status, JSON report in $work/report.json
  status=0
  "$binary" scan --no-git --format json "$1" >"$work/report.json" 2>"$work/stderr" || status=$?
}
# rule path line suppressed(true|false): exactly one such finding
expect() {
  python3 - "$work/report.json" "$@" <<'PY' || fail "expected $* in: $(head -c 3000 "$work/report.json")"
import json, sys
report, rule, path, line, suppressed = sys.argv[1:]
found = [f for f in json.load(open(report))['findings']
         if f['rule'] == rule and f['path'] == path and f['line'] == int(line)]
sys.exit(0 if len(found) == 1 and found[0]['suppressed'] == (suppressed == 'true') else 1)
PY
}

# 1. Markers in data: a Python string, an f-string, a docstring, a shell
#    heredoc and string, a README code span, a notebook string. Nothing is
#    suppressed, and nothing is read as a directive.
tree=$work/data && mkdir -p "$tree"
cat >"$tree/a.py" <<'PY'
import torch
help = "see # mpsaudit: ignore-file[MPS2] docs"
tip = f"{help:>10} # mpsaudit: ignore-file[MPS1]"
"""Usage:
# mpsaudit: ignore-file
"""
m = torch.nn.Linear(2, 2).cuda()
torch.cuda.synchronize()
PY
cat >"$tree/run.sh" <<'SH'
cat <<END > gen.py
# mpsaudit: ignore-file
END
echo "# mpsaudit: ignore-file"
nvidia-smi
SH
cat >"$tree/README.md" <<'MD'
Silence a finding with `<!-- mpsaudit: ignore-file -->`.

```sh
# mpsaudit: ignore-file
```
MD
cat >"$tree/nb.ipynb" <<'NB'
{"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Setup\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n", "note = '# mpsaudit: ignore-file[MPS2]'\n", "x = torch.zeros(2).cuda()\n"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NB
scan "$tree"
[[ $status -eq 1 ]] || fail "markers in data: exit $status, expected 1 ($(cat "$work/stderr"))"
expect MPS201 a.py 7 false
expect MPS101 a.py 8 false
python3 - "$work/report.json" <<'PY' || fail "markers in data"
import json, sys
findings = json.load(open(sys.argv[1]))['findings']
assert not any(f['suppressed'] for f in findings), 'a marker in data suppressed a finding'
assert any(f['path'] == 'run.sh' for f in findings), 'run.sh findings missing'
assert any(f['path'] == 'nb.ipynb' and f['rule'] == 'MPS201' for f in findings), 'notebook finding missing'
assert not any(f['rule'] in ('MPS001', 'MPS002') for f in findings), 'data was read as a directive'
PY

# 2. Near misses: MPS002 on their line; the finding stays open; exit 1.
tree=$work/near && mkdir -p "$tree"
cat >"$tree/b.py" <<'PY'
import torch
torch.cuda.synchronize()  # MPSAUDIT: IGNORE[MPS101] timing
torch.cuda.synchronize()  # mpsaudit : ignore[MPS101] timing
torch.cuda.synchronize()  # mpsaudit: ignore [MPS101] timing
torch.cuda.synchronize()  # mpsaudit: ignore[MPS101 timing
PY
scan "$tree"
[[ $status -eq 1 ]] || fail "near misses: exit $status, expected 1"
for line in 2 3 4 5; do
  expect MPS002 b.py "$line" false
  expect MPS101 b.py "$line" false
done
"$binary" scan --no-git "$tree" >"$work/text" 2>&1 || true
grep -q "b.py:2:1: MPS002 warning: .*is not a valid suppression and suppresses nothing" "$work/text" ||
  fail "the text report does not name the malformed marker: $(cat "$work/text")"

# 3. Real comments still suppress (the form without blanks too, and in a
#    notebook cell below a markdown cell): exit 0.
tree=$work/real && mkdir -p "$tree"
cat >"$tree/c.py" <<'PY'
import torch
torch.cuda.synchronize()  # mpsaudit: ignore[MPS101] timing on the cluster
torch.cuda.synchronize()  #mpsaudit:ignore[MPS101] timing on the cluster
PY
cat >"$tree/nb.ipynb" <<'NB'
{"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Setup\n"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n", "torch.cuda.synchronize()  # mpsaudit: ignore[MPS101] demo\n"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NB
scan "$tree"
[[ $status -eq 0 ]] || fail "real comments: exit $status, expected 0: $(head -c 2000 "$work/report.json")"
expect MPS101 c.py 2 true
expect MPS101 c.py 3 true
echo "suppression markers: data never suppresses, near misses are MPS002, comments still work"
