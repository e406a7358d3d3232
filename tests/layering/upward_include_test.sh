#!/usr/bin/env bash
# scripts/check-layers on a small analyzer tree: an include that points up the
# layer order, or a folder with no place in it, fails the check and is named
# with its file and line; includes that point down pass.
# Usage: upward_include_test.sh <source-dir>
set -euo pipefail
source_dir=$1
checker="$source_dir/scripts/check-layers"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/core" "$tree/scan" "$tree/frontend/python"
printf '#include "core/fact.h"\n' >"$tree/scan/scan.h"
printf '#pragma once\n#include <string>\n' >"$tree/core/fact.h"
printf '#include "core/fact.h"\n#include "frontend/python/python_frontend.h"\n' \
  >"$tree/frontend/python/python_frontend.cpp"
printf '#pragma once\n' >"$tree/frontend/python/python_frontend.h"
python3 "$checker" --root "$tree" >"$tree/clean.out" || {
  echo "FAIL: downward includes were reported"; cat "$tree/clean.out"; exit 1
}

# frontend (below scan) includes a scan header, once by path, once relatively.
printf '#include "core/fact.h"\n#include "scan/scan.h"\n' >"$tree/frontend/frontend.h"
printf '#include "../../scan/scan.h"\n' >"$tree/frontend/python/relative.cpp"
if python3 "$checker" --root "$tree" >"$tree/upward.out"; then
  echo "FAIL: an upward include passed"; cat "$tree/upward.out"; exit 1
fi
grep -q "frontend/frontend.h:2: frontend includes scan/scan.h (scan is above frontend)" "$tree/upward.out" || {
  echo "FAIL: the violation does not name the file, line and header"; cat "$tree/upward.out"; exit 1
}
grep -q "frontend/python/relative.cpp:1: frontend includes ../../scan/scan.h" "$tree/upward.out" || {
  echo "FAIL: a relative upward include was missed"; cat "$tree/upward.out"; exit 1
}
rm "$tree/frontend/frontend.h" "$tree/frontend/python/relative.cpp"

# A folder the order does not place.
mkdir "$tree/newlayer"
if python3 "$checker" --root "$tree" >"$tree/unplaced.out"; then
  echo "FAIL: an unplaced folder passed"; cat "$tree/unplaced.out"; exit 1
fi
grep -q "newlayer/: folder has no place in the layer order" "$tree/unplaced.out" || {
  echo "FAIL: the unplaced folder is not named"; cat "$tree/unplaced.out"; exit 1
}
echo "ok"
