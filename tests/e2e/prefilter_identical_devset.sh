#!/usr/bin/env bash
# The Python prefilter on real trees: for every dev-set tree (repos/* and
# ports/trees/* of ../shared/devset beside the checkout), the JSON report with
# the prefilter equals the one without it (MPSAUDIT_NO_PREFILTER=1). Passes
# with a note when the dev set is absent.
set -euo pipefail
binary=$1
source_dir=$2
devset=$(cd "$source_dir/.." && pwd)/shared/devset
if [[ ! -d $devset/repos && ! -d $devset/ports/trees ]]; then
  echo "skipped: no dev set at $devset"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

trees=0
for tree in "$devset"/repos/*/ "$devset"/ports/trees/*/; do
  [[ -d $tree ]] || continue
  status=0
  "$binary" scan --no-git --format json -o "$work/prefiltered.json" "$tree" 2>/dev/null || status=$?
  [[ $status -le 3 ]] || fail "$tree: scan exited $status"
  status=0
  MPSAUDIT_NO_PREFILTER=1 "$binary" scan --no-git --format json -o "$work/full.json" "$tree" 2>/dev/null ||
    status=$?
  [[ $status -le 3 ]] || fail "$tree: full scan exited $status"
  cmp -s "$work/prefiltered.json" "$work/full.json" ||
    fail "$tree: the prefiltered report differs from the full one: $(diff <(python3 -m json.tool "$work/full.json") <(python3 -m json.tool "$work/prefiltered.json") | head -20)"
  trees=$((trees + 1))
done
echo "$trees dev-set trees: prefiltered and full reports are identical"
