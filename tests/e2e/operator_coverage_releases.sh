#!/usr/bin/env bash
# The default scan (no --probe, no LibTorch) reports operators without an MPS
# kernel in the project's target-torch (MPS970): the same file scanned with
# target-torch 2.0 and 2.11 in mpsaudit.toml gets a different answer.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/samples/mps-operator-gaps/spectral.py" "$work/"

scan_for() { # release -> "line message" of each MPS970 finding
  printf 'target-torch = "%s"\n' "$1" >"$work/mpsaudit.toml"
  (cd "$work" && "$binary" scan --no-git --format json . 2>/dev/null || true) | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    if f["rule"] == "MPS970":
        print(f["line"], f["message"])'
}

old=$(scan_for 2.0)
new=$(scan_for 2.11)
fail() { echo "FAIL: $*" >&2; echo "2.0:"; echo "$old"; echo "2.11:"; echo "$new"; exit 1; }

grep -qF '7 `torch.stft` has no MPS kernel in torch 2.0.0 (added by 2.4.0); set PYTORCH_ENABLE_MPS_FALLBACK=1' <<<"$old" ||
  fail "2.0 should report torch.stft with the release that added it"
grep -qF '12 `torchvision.ops.nms` has no MPS kernel in torch 2.0 (added in 2.1)' <<<"$old" ||
  fail "2.0 should report torchvision.ops.nms"
if grep -q 'torch.stft\|torchvision.ops.nms\|torch.bucketize' <<<"$new"; then
  fail "2.11 has MPS kernels for stft, nms and bucketize"
fi
grep -qF '`torch.linalg.svd` always falls back to the CPU under MPS in torch 2.11.0' <<<"$new" ||
  fail "2.11 still sends linalg.svd to the CPU"
[ "$(wc -l <<<"$old")" -gt "$(wc -l <<<"$new")" ] || fail "2.0 should have more gaps than 2.11"
echo "target-torch 2.0: $(wc -l <<<"$old") MPS970 findings; 2.11: $(wc -l <<<"$new")"
