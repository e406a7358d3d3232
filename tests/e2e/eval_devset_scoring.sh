#!/usr/bin/env bash
# scripts/eval-devset scores what docs/accuracy.md says, on a made-up dev set
# (the checks are in eval_devset_scoring.py).
set -euo pipefail
exec python3 "$2/tests/e2e/eval_devset_scoring.py" "$1" "$2"
