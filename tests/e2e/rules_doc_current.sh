#!/usr/bin/env bash
# docs/rules.md is generated from rules/*.toml; fail when it is stale.
# Regenerate with: build/mpsaudit rules --markdown > docs/rules.md
set -euo pipefail
binary=$1 root=$2
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
"$binary" rules --markdown --rules-dir "$root/rules" >"$generated"
if ! diff -u "$root/docs/rules.md" "$generated"; then
  echo "docs/rules.md is out of date: run '$binary rules --markdown > docs/rules.md'" >&2
  exit 1
fi
echo "docs/rules.md matches rules/*.toml"
