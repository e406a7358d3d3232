#!/usr/bin/env bash
# `mpsaudit fix --apply` never changes what working code does (see
# docs/fix.md "Safety model"):
#   - a test that compares two devices is not edited, and not merged into
#     one device even with --include-tests;
#   - `@autocast('cuda', enabled=False)` is left alone for target 2.4 (MPS
#     autocast is 2.5) and fixed for 2.6; the target comes from the manifests'
#     torch pin when neither --target-torch nor the config names one;
#   - nothing is edited on a CUDA-only branch (a device-type check, TensorRT);
#   - `torch.load` into load_state_dict gets map_location="cpu" as a safe fix;
#   - CRLF line endings and a UTF-8 BOM survive; a symlink out of the root
#     is neither read nor written.
# Usage: fix_safety.sh MPSAUDIT REPO_ROOT
set -u
source "$(dirname "${BASH_SOURCE[0]}")/fix_common.bash" "$@"

# --- a device comparison in a test -----------------------------------------
mkdir -p "$WORK/compare/tests" && cd "$WORK/compare" || exit 1
cat >tests/test_cache.py <<'PY'
import torch


def test_cache_keys_per_device():
    cache = {}
    cache[torch.device("cpu")] = 1
    cache[torch.device("cuda")] = 2
    assert len(cache) == 2
PY
cat >helpers.py <<'PY'
import torch


def same_device(a, b):
    return torch.device("cpu") == a and torch.device("cuda") == b
PY
cp tests/test_cache.py helpers.py "$WORK/"
"$MPSAUDIT" fix . --no-git --no-config --apply --unsafe --show-skipped >out.txt 2>err.txt
cmp -s tests/test_cache.py "$WORK/test_cache.py" || fail "compare: the test file was edited without --include-tests"
grep -q 'tests/test_cache.py:7:.*MPS202 not fixed: a test file: pass --include-tests' err.txt ||
  fail "compare: --show-skipped does not say the test file is left alone"
"$MPSAUDIT" fix . --no-git --no-config --apply --unsafe --include-tests --show-skipped >out.txt 2>err.txt
cmp -s tests/test_cache.py "$WORK/test_cache.py" || fail "compare: --include-tests merged the devices of a test"
cmp -s helpers.py "$WORK/helpers.py" || fail "compare: a function comparing cpu and cuda was edited"
grep -q 'tests/test_cache.py:7:.*"cuda" and "cpu" in one function: it tells devices apart' err.txt ||
  fail "compare: the reason for leaving the comparison alone is missing"$'\n'"$(cat err.txt)"

# --- autocast needs 2.5 on MPS ----------------------------------------------
mkdir -p "$WORK/autocast" && cd "$WORK/autocast" || exit 1
cat >model.py <<'PY'
import torch
from torch import autocast


@autocast('cuda', enabled=False)
def rotary(x):
    return x.float()
PY
cp model.py "$WORK/autocast.orig"
"$MPSAUDIT" fix . --no-git --no-config --apply --target-torch 2.4 --show-skipped >/dev/null 2>err.txt
cmp -s model.py "$WORK/autocast.orig" || fail "autocast: edited for target 2.4"
grep -q 'model.py:5:.*needs PyTorch 2.5 (autocast on MPS' err.txt ||
  fail "autocast: --show-skipped does not name the release autocast needs"$'\n'"$(cat err.txt)"
# The manifests' torch pin is the target without --target-torch.
echo 'torch==2.4.1' >requirements.txt
"$MPSAUDIT" fix . --no-git --no-config --apply >/dev/null 2>err.txt
cmp -s model.py "$WORK/autocast.orig" || fail "autocast: edited with torch pinned to 2.4.1"
grep -q 'target PyTorch 2.4.1' err.txt || fail "autocast: the manifest pin is not the target"
echo 'torch==2.6.0' >requirements.txt
"$MPSAUDIT" fix . --no-git --no-config --apply >/dev/null 2>err.txt
grep -q "@autocast('cuda' if torch.cuda.is_available() else torch.accelerator.current_accelerator().type" model.py ||
  fail "autocast: not fixed for torch 2.6"$'\n'"$(cat model.py err.txt)"
python3 -m py_compile model.py || fail "autocast: the fixed file does not compile"

# --- CUDA-only branches -----------------------------------------------------
mkdir -p "$WORK/branch" && cd "$WORK/branch" || exit 1
cat >engine.py <<'PY'
import torch


def build(model, x, device, use_tensorrt=False):
    if device.type == "cuda":
        x = x.to(torch.float64).to("cuda")
    if use_tensorrt:
        import tensorrt as trt
        model = model.to("cuda")
    return model(x)
PY
cp engine.py "$WORK/engine.orig"
"$MPSAUDIT" fix . --no-git --no-config --apply --unsafe --target-torch 2.6 --show-skipped >/dev/null 2>err.txt
cmp -s engine.py "$WORK/engine.orig" || fail "branch: a CUDA-only branch was edited"$'\n'"$(diff "$WORK/engine.orig" engine.py)"
grep -q 'engine.py:9:.*CUDA-only' err.txt || fail "branch: the TensorRT branch has no reason"$'\n'"$(cat err.txt)"

# --- torch.load gets map_location="cpu" -----------------------------------------
mkdir -p "$WORK/load" && cd "$WORK/load" || exit 1
cat >restore.py <<'PY'
import torch


def restore(model, path):
    model.load_state_dict(torch.load(path))
    extra = torch.load(path + ".extra")
    return extra
PY
"$MPSAUDIT" fix . --no-git --no-config --apply >/dev/null 2>err.txt
grep -q 'model.load_state_dict(torch.load(path, map_location="cpu"))' restore.py ||
  fail "load: the load into load_state_dict did not get map_location"
grep -q 'extra = torch.load(path + ".extra")$' restore.py || fail "load: a load used directly was changed as safe"
grep -q '1 more with --unsafe' err.txt || fail "load: the direct load is not offered with --unsafe"

# --- CRLF, BOM, a symlink out of the root --------------------------------------
mkdir -p "$WORK/bytes/repo" "$WORK/bytes/outside" && cd "$WORK/bytes" || exit 1
printf '\xef\xbb\xbfimport torch\r\n\r\n\r\ndef f(m):\r\n    return m.cuda()\r\n' >repo/bom.py
printf 'import torch\r\nnet = torch.nn.Linear(2, 2).cuda()\r\n' >repo/crlf.py
printf 'import torch\nnet = torch.nn.Linear(2, 2).cuda()\n' >outside/victim.py
cp outside/victim.py victim.orig
ln -s ../outside/victim.py repo/linked.py
(cd repo && "$MPSAUDIT" fix . --no-git --no-config --apply >/dev/null 2>../err.txt)
head -c 3 repo/bom.py | od -An -tx1 | grep -q 'ef bb bf' || fail "bytes: the BOM was lost"
for file in repo/bom.py repo/crlf.py; do
  grep -q '\.to(device)' "$file" || fail "bytes: $file was not fixed"
  lf_only=$(grep -c -v $'\r$' "$file")
  [ "$lf_only" -eq 0 ] || fail "bytes: $file has $lf_only lines without CRLF"
  python3 -m py_compile "$file" || fail "bytes: $file does not compile"
done
cmp -s outside/victim.py victim.orig || fail "bytes: a file outside the root was written through a symlink"
[ -L repo/linked.py ] || fail "bytes: the symlink was replaced"

[ "$status" -eq 0 ] && echo "ok: fix keeps tests, comparisons, CUDA-only branches, old targets and bytes intact"
exit $status
