#!/usr/bin/env bash
# What `mpsaudit fix` must leave alone, and how its command line behaves:
#   - strings, comments and docstrings that mention CUDA calls;
#   - code already behind a CUDA check or an early exit;
#   - calls whose device index or used result is a choice for a person;
#   - notebooks (not edited), hashed requirements, multi-line requirements;
#   - --rule limits the fixes; unsafe fixes need --unsafe; exit codes.
# Usage: fix_negative.sh MPSAUDIT REPO_ROOT
set -u
source "$(dirname "${BASH_SOURCE[0]}")/fix_common.bash" "$@"

mkdir -p "$WORK/repo"
cd "$WORK/repo" || exit 1
cat >untouched.py <<'PY'
"""Call model.cuda() and torch.cuda.synchronize() before timing.

torch.load(path) and torch.cuda.empty_cache() in a docstring are prose.
"""
import torch

HELP = "use x.cuda() or torch.cuda.manual_seed_all(0); pin_memory=True"
TEMPLATE = f"torch.load({HELP!r})"
# net.cuda(); torch.cuda.synchronize(); torch.load(p)  <- a comment


def guarded(net, x):
    if torch.cuda.is_available():
        net = net.cuda()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.manual_seed_all(0)
        scaler = torch.cuda.amp.GradScaler()
    return net(x), scaler


def after_early_exit(net):
    if not torch.cuda.is_available():
        return net
    torch.cuda.synchronize()
    return net.cuda()


def choices(net, rank):
    print(torch.cuda.synchronize())
    return net.cuda(rank), net.cuda(device=rank)
PY
cat >explore.ipynb <<'JSON'
{
 "cells": [
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["import torch\n", "model = torch.nn.Linear(2, 2).cuda()\n", "torch.cuda.synchronize()\n"]}
 ],
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
JSON
cat >requirements.txt <<'REQ'
torch==2.1.0+cu118 --hash=sha256:0123456789abcdef
torchvision==0.16.0+cu118 \
    ; python_version >= "3.8"
REQ
cp -r "$WORK/repo" "$WORK/orig"

"$MPSAUDIT" fix . --no-config --apply --unsafe >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -eq 0 ] || fail "fix --apply exited $rc: $(cat "$WORK/err")"
for file in untouched.py explore.ipynb requirements.txt; do
  cmp -s "$file" "$WORK/orig/$file" || {
    fail "$file was changed:"
    diff -u "$WORK/orig/$file" "$file"
  }
done
grep -q '^Fixed 0 findings' "$WORK/err" || fail "expected nothing fixed: $(cat "$WORK/err")"
"$MPSAUDIT" fix . --no-config --unsafe --show-skipped >"$WORK/out" 2>"$WORK/err"
grep -q 'guarded (cuda-check): left as written' "$WORK/err" || fail "guarded findings are not reported as left alone"
grep -q "names a device" "$WORK/err" || fail ".cuda(rank) is not reported as a choice"
grep -q 'notebook files are not edited' "$WORK/err" || fail "the notebook is not reported as left alone"

# A real fix next to a string and a comment changes only the code.
mkdir -p "$WORK/mixed" && cd "$WORK/mixed" || exit 1
printf 'import torch\nx = torch.zeros(2).cuda()  # not y.cuda()\nmsg = "z.cuda()"\n' >mixed.py
"$MPSAUDIT" fix . --no-config >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -eq 1 ] || fail "a diff should exit 1, got $rc"
grep -q -F -- '+x = torch.zeros(2).to(device)  # not y.cuda()' "$WORK/out" || fail "the code was not fixed as expected: $(cat "$WORK/out")"
grep -q -F -- 'msg = "z.cuda()"' mixed.py || fail "fix without --apply wrote the file"
if grep -q -F -- '-msg' "$WORK/out"; then fail "the string line was changed"; fi

# --rule limits; an unknown rule is a usage error; unsafe needs --unsafe.
printf 'import torch\ntorch.cuda.synchronize()\nstate = torch.load("a.pt")\n' >rules.py
"$MPSAUDIT" fix rules.py --no-config --rule MPS205 >"$WORK/out" 2>"$WORK/err"
[ -s "$WORK/out" ] && fail "--rule MPS205 without --unsafe printed a diff: $(cat "$WORK/out")"
grep -q '1 more with --unsafe' "$WORK/err" || fail "the withheld unsafe fix is not counted: $(cat "$WORK/err")"
"$MPSAUDIT" fix rules.py --no-config --rule MPS205 --unsafe >"$WORK/out" 2>"$WORK/err"
grep -q -F -- 'map_location="cpu"' "$WORK/out" || fail "--rule MPS205 --unsafe did not fix torch.load"
grep -q 'torch.mps.synchronize' "$WORK/out" && fail "--rule MPS205 also fixed MPS101"
"$MPSAUDIT" fix . --no-config --rule MPS999 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--rule with an unknown rule should exit 2"
"$MPSAUDIT" fix . --no-config --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option should exit 2"

# Nothing to fix: empty output, exit 0.
mkdir -p "$WORK/clean" && cd "$WORK/clean" || exit 1
printf 'import torch\nx = torch.zeros(2)\n' >clean.py
"$MPSAUDIT" fix . --no-config >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -eq 0 ] || fail "a clean tree should exit 0, got $rc"
[ -s "$WORK/out" ] && fail "a clean tree printed a diff"

[ $status -eq 0 ] && echo "ok: fix leaves strings, comments, guarded code, notebooks and hashed pins alone"
exit $status
