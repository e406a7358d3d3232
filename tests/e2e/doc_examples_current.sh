#!/usr/bin/env bash
# The command examples in README.md and docs/*.md (each after an
# `<!-- example: ... -->` marker) are real runs of this build: fail when one
# is stale. Regenerate them with: scripts/doc-examples
set -euo pipefail
binary=$1 root=$2
command -v script >/dev/null || { echo "SKIP: script(1) is missing"; exit 77; }
python3 "$root/scripts/doc-examples" --check --mpsaudit "$binary"
echo "README and docs examples match real runs"
