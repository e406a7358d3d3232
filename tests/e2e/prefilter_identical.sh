#!/usr/bin/env bash
# The Python prefilter changes nothing but time: on every sample repository,
# and on a tree with files that lack every trigger word (one with a syntax
# error), the JSON report with the prefilter equals the one without it
# (MPSAUDIT_NO_PREFILTER=1), and the prefilter did spare some files.
set -euo pipefail
binary=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/prefilter_common.bash"

for sample in "$source_dir"/samples/*/; do
  compare_reports "$sample" "$(basename "$sample")"
done

# Files the prefilter must spare, beside files it must not.
tree=$work/tree
mkdir -p "$tree/pkg"
printf 'VERSION = "1.0"\nNAMES = ["a", "b"]\n' >"$tree/pkg/constants.py"
printf 'x = (1,\n' >"$tree/pkg/broken_syntax.py"
printf '' >"$tree/pkg/empty.py"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$tree/train.py"
compare_reports "$tree" "generated tree"
grep -q 'python prefilter: .* parsed only 3 of 4 files' "$work/profile" ||
  fail "the prefilter did not spare the three files without trigger words: $(grep prefilter "$work/profile")"
python3 -c "
import json, sys
report = json.load(open('$work/prefiltered.json'))
sys.exit(0 if any(d['code'] == 'syntax-error' and d['path'].endswith('broken_syntax.py') for d in report['diagnostics']) else 1)
" || fail "the spared file's syntax error is not reported"
echo "prefiltered and full reports are identical"
