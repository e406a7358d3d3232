#!/usr/bin/env bash
# `mpsaudit fix` on samples/fix-cases prints exactly the reviewed diffs in
# tests/e2e/fix_expected/: the safe fixes (default), every fix (--unsafe),
# every fix for a release with torch.accelerator (--target-torch 2.6), and
# for one with GradScaler on MPS (2.8). Without --target-torch the target is
# the sample's torch pin (2.1.0), where autocast and GradScaler are not offered.
# Every fix kind appears in these diffs.
# Usage: fix_expected_diff.sh MPSAUDIT REPO_ROOT
# Set MPSAUDIT_UPDATE_EXPECTED=1 to rewrite the expected diffs (review them).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/fix_common.bash" "$@"
EXPECTED="$ROOT/tests/e2e/fix_expected"

check() { # name, fix arguments...
  local name=$1
  shift
  rm -rf "$WORK/sample"
  cp -r "$ROOT/samples/fix-cases" "$WORK/sample"
  (cd "$WORK/sample" && "$MPSAUDIT" fix . --no-config "$@" >"$WORK/$name.diff" 2>"$WORK/$name.err")
  local rc=$?
  if [ "$rc" -ne 1 ]; then
    echo "FAIL $name: fix exited $rc, expected 1 (a diff was printed)"
    cat "$WORK/$name.err"
    status=1
  fi
  if [ "${MPSAUDIT_UPDATE_EXPECTED:-0}" = 1 ]; then
    cp "$WORK/$name.diff" "$EXPECTED/$name.diff"
    echo "updated $EXPECTED/$name.diff"
  elif ! diff -u "$EXPECTED/$name.diff" "$WORK/$name.diff"; then
    echo "FAIL $name: the diff differs from tests/e2e/fix_expected/$name.diff (above)"
    status=1
  else
    echo "ok $name: $(tail -n 1 "$WORK/$name.err")"
  fi
  # Printing a diff never writes.
  if ! diff -r -q "$ROOT/samples/fix-cases" "$WORK/sample" >/dev/null; then
    echo "FAIL $name: fix without --apply changed files"
    status=1
  fi
}

check safe
check unsafe --unsafe
check torch-2.6 --unsafe --target-torch 2.6
check torch-2.8 --unsafe --target-torch 2.8

# Every fix kind of rules/fixes.toml shows up in some expected diff.
for marker in 'torch.backends.mps.is_available() else' 'elif torch.backends.mps.is_available():' \
  '.to(device' 'torch.autocast(device_type=' 'torch.amp.GradScaler(' 'map_location="cpu"' \
  'torch.mps.synchronize()' 'torch.mps.empty_cache()' 'torch.manual_seed(0)' \
  'pin_memory=(device.type == "cuda")' 'device=x.device' 'sys_platform != "darwin"' \
  'sys_platform == "darwin"' 'mpsaudit: ignore[MPS702]' '+--extra-index-url' \
  'torch.accelerator.synchronize()' 'torch.accelerator.current_accelerator()' \
  'torch.device("cuda:0" if torch.cuda.is_available() else'; do
  if ! grep -q -F -- "$marker" "$EXPECTED"/*.diff; then
    echo "FAIL: no expected diff shows '$marker'"
    status=1
  fi
done
exit $status
