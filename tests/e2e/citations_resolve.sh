#!/usr/bin/env bash
# Every rule's sources resolve for a user: a docs/ file (with its anchor as a
# heading) or an https URL; see citations_resolve.py. `explain` prints them.
set -euo pipefail
binary=$1 root=$2
python3 "$root/tests/e2e/citations_resolve.py" "$root"
# What `explain` prints cites no file users lack.
explained=$("$binary" explain MPS101)
grep -q "docs/knowledge/\|https://" <<<"$explained" || { echo "FAIL: explain MPS101 cites no source" >&2; exit 1; }
if grep -q "shared/" <<<"$explained"; then echo "FAIL: explain cites shared/" >&2; exit 1; fi
echo "citations: ok"
