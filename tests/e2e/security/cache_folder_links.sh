#!/usr/bin/env bash
# A result cache kept inside the scanned tree (a CI workspace) whose shard
# folders (v2/00 ... v2/ff) the tree planted as symbolic links to a folder
# outside, holding a well-formed entry that would hide a file's findings
# (docs/cache.md, docs/security.md "Result cache"). The promise: no link below
# the cache root is followed. The entry behind the link is not read (the
# findings are still reported, the file counts as parsed, not cached) and
# nothing is written through the links.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

cache_tree
printf 'import torch\ntorch.cuda.synchronize()\nx = torch.zeros(1).cuda()\n' >"$tree/train.py"
printf 'import os\nprint(os.getcwd())\n' >"$tree/clean.py"

findings() { # the rule and place of each finding of a JSON report
  python3 -c 'import json,sys; [print(f["rule"], f["path"], f["line"]) for f in json.load(open(sys.argv[1]))["findings"]]' "$1"
}

cache_scan "$work/reference" --no-cache
findings "$work/reference" >"$work/reference.findings"
grep -q 'train.py' "$work/reference.findings" || fail "no findings in train.py: $(cat "$work/reference.findings")"

# Forge, in a cache of the user's own, train.py's entry from clean.py's: a
# well-formed entry (key echo, checksum) with no findings. The scan trusts
# its own cache, so this entry hides the findings there; that shows the
# forged entry would be used if it were read.
own=$work/own-cache
cache_scan "$work/cold" --cache-dir "$own"
python3 - "$own" "$work/forged" <<'EOF'
import glob, sys
MASK = 2**64 - 1
P1, P2 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F
def rotl(v, b): return ((v << b) | (v >> (64 - b))) & MASK
def fnv1a(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & MASK
    return h
def checksum(data): # scan/result_cache.cpp, checksum()
    lanes = [0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89]
    at = 0
    while at + 32 <= len(data):
        for lane in range(4):
            word = int.from_bytes(data[at + 8 * lane:at + 8 * lane + 8], 'little')
            lanes[lane] = (rotl((lanes[lane] + word * P2) & MASK, 31) * P1) & MASK
        at += 32
    total = fnv1a(data[at:]) ^ len(data)
    for lane in lanes:
        total = (rotl(total ^ lane, 27) * P1 + P2) & MASK
    return total
header = 8 + 4 + 32 + 8 + 8
entries = {path: open(path, 'rb').read() for path in glob.glob(sys.argv[1] + '/v*/*/' + '?' * 64)}
victim = [path for path, data in entries.items() if b'train.py' in data[header:]]
donor = [path for path, data in entries.items() if b'train.py' not in data and b'MPS' not in data[header:]]
assert len(victim) == 1 and len(donor) == 1, (victim, donor)
key = entries[victim[0]][12:44]
payload = entries[donor[0]][header:]
forged = entries[victim[0]][:12] + key + len(payload).to_bytes(8, 'little') + \
    checksum(payload).to_bytes(8, 'little') + payload
assert checksum(entries[donor[0]][header:]) == int.from_bytes(entries[donor[0]][52:60], 'little')
open(victim[0], 'wb').write(forged)
open(sys.argv[2], 'wb').write(forged)
print(victim[0].split('/')[-1], file=open(sys.argv[2] + '.name', 'w'))
EOF
cache_scan "$work/hidden" --cache-dir "$own"
grep -q 'train.py' <(findings "$work/hidden") && fail "the forged entry was not taken from the user's own cache"

# The same entry behind links the tree planted at every shard folder of a
# cache inside it.
cache=$tree/.mpsaudit-cache
name=$(cat "$work/forged.name")
mkdir -p "$cache/v2"
chmod 700 "$cache" "$cache/v2"
for shard in $(printf '%02x ' $(seq 0 255)); do
  mkdir -p "$work/outside/$shard"
  ln -s "$work/outside/$shard" "$cache/v2/$shard"
done
cp "$work/forged" "$work/outside/${name:0:2}/$name"
sleep 1 && touch "$work/stamp" # what is newer than this, a scan wrote
cache_scan "$work/planted" --cache-dir "$cache"
findings "$work/planted" >"$work/planted.findings"
cmp -s "$work/reference.findings" "$work/planted.findings" ||
  fail "the entry behind a planted link hid findings: $(diff "$work/reference.findings" "$work/planted.findings")"
grep -q 'result cache: 0 files from the cache' "$work/planted.err" ||
  fail "an entry was read through a planted link: $(cat "$work/planted.err")"
written=$(find "$work/outside" \( -newer "$work/stamp" -o -type f ! -name "$name" \) -print)
[[ -z $written ]] || fail "the scan wrote through the planted links: $written"
cmp -s "$work/forged" "$work/outside/${name:0:2}/$name" || fail "the entry behind the link was changed"
[[ $(find "$cache/v2" -mindepth 1 -maxdepth 1 -type l | wc -l) -eq 256 ]] || fail "the planted links were replaced"
echo "cache folder links: ok"
