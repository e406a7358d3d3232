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
source "$(dirname "${BASH_SOURCE[0]}")/prefilter_common.bash"

trees=0
for tree in "$devset"/repos/*/ "$devset"/ports/trees/*/; do
  [[ -d $tree ]] || continue
  compare_reports "$tree" "$tree"
  trees=$((trees + 1))
done
echo "$trees dev-set trees: prefiltered and full reports are identical"
