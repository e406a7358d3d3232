#!/usr/bin/env bash
# The result cache (docs/cache.md) names its entries by hash, never by a path
# from the scanned tree, and follows no symbolic link at an entry's place: a
# tree full of links and odd names leaves only hex-named entries, and a link
# planted where an entry goes is neither read nor written through.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

cache_tree
mkdir -p "$tree/pkg"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$tree/train.py"
printf 'import torch\nx = torch.zeros(1).cuda()\n' >"$tree/pkg/..model.py"
printf 'import torch\n' >"$tree/pkg/$(printf 'new\nline.py')"
printf 'secret = 1\n' >"$work/outside/secret.py"
ln -s "$work/outside/secret.py" "$tree/linked.py"
ln -s "$work/outside" "$tree/linked_dir"
cache=$work/cache
sleep 1 && touch "$work/stamp" # what is newer than this, a scan wrote

cache_scan "$work/cold" --cache-dir "$cache"
bad=$(find "$cache" -mindepth 1 ! -type d ! -name '.last-trim' -regextype posix-extended \
  ! -regex "$cache/v[0-9]+/[0-9a-f]{2}/[0-9a-f]{64}" -print)
[[ -z $bad ]] || fail "the cache holds entries not named by a hash: $bad"
[[ -z $(find "$cache" -type l) ]] || fail "the cache holds a symbolic link"
[[ -z $(find "$work/outside" -newer "$work/stamp") ]] || fail "the scan wrote outside the cache"

# Replace every entry with a link to a file outside the cache holding a
# forged entry: the next scan must neither trust nor overwrite it.
printf 'MPSCACHE forged' >"$work/outside/forged"
find "$cache" -type f -regextype posix-extended -regex '.*/[0-9a-f]{64}' | while read -r entry; do
  ln -sf "$work/outside/forged" "$entry"
done
cache_scan "$work/planted" --cache-dir "$cache"
cmp -s "$work/cold" "$work/planted" || fail "a planted link changed the report"
grep -q 'result cache: 0 files from the cache' "$work/planted.err" || fail "a planted link was read: $(cat "$work/planted.err")"
[[ $(cat "$work/outside/forged") == 'MPSCACHE forged' ]] || fail "a write went through a planted link"
[[ -z $(find "$cache" -type l) ]] || fail "the planted links were not replaced by entries"
echo "cache entry paths: ok"
