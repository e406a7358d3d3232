#!/usr/bin/env bash
# Attack: a requirements include cycle hid every file in it. requirements.txt
# includes deps.txt and deps.txt includes requirements.txt back; deps.txt
# pins a CUDA wheel (torch==2.1.0+cu118) and includes /dev/zero. The scan
# reported one `include-cycle` warning and exited 0.
# Promise (docs/security.md, "Requirement includes"): a cycle is a warning and
# hides nothing. Every finding of every file in the cycle is reported once,
# and a refused include in it is reported, with the exit code it gives
# without the cycle (3).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

scan_tree() { # name, then each file and its text: the tree $work/NAME of these files, scanned (scan_json)
  local tree=$work/$1
  shift
  mkdir -p "$tree"
  while (($#)); do
    printf '%b' "$2" >"$tree/$1"
    shift 2
  done
  scan_json "$tree"
}
count() { # rule-or-code kind(findings|diagnostics) path line: how many
  python3 - "$work/report.json" "$@" <<'PY'
import json, sys
report, what, kind, path, line = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
key = "rule" if kind == "findings" else "code"
print(sum(1 for x in json.load(open(report))[kind] if x[key] == what and x["path"] == path and x["line"] == line))
PY
}
expect_once() { # rule-or-code kind path line
  local seen
  seen=$(count "$@")
  [[ $seen -eq 1 ]] || fail "$5: want one $1 at $3:$4, got $seen: $(head -c 3000 "$work/report.json")"
}

# Two files that include each other; deps.txt is reached only through the include.
scan_tree pair requirements.txt 'numpy\n-r deps.txt\n' \
  deps.txt 'torch==2.1.0+cu118\n-r requirements.txt\n-r /dev/zero\n'
[[ $status -eq 3 ]] || fail "a refused include inside a cycle exits $status, want 3 (as without the cycle)"
expect_once MPS701 findings requirements.txt 2 "the CUDA pin of deps.txt"
expect_once include-outside-root diagnostics deps.txt 3 "/dev/zero in deps.txt"
expect_once include-cycle diagnostics requirements.txt 2 "the cycle"

# The same without the cycle gives the same finding and the same exit code.
scan_tree chain requirements.txt 'numpy\n-r deps.txt\n' \
  deps.txt 'torch==2.1.0+cu118\n-r /dev/zero\n'
[[ $status -eq 3 ]] || fail "the chain without a cycle exits $status, want 3"
expect_once MPS701 findings requirements.txt 2 "the chain's CUDA pin"

# A longer cycle through a file scanned on its own: each file's pin once.
scan_tree ring requirements.txt 'numpy\n-r a.in\n' \
  a.in 'torch==2.1.0+cu118\n-r requirements-gpu.txt\n' \
  requirements-gpu.txt 'torchvision==0.16.0+cu118\n-r requirements.txt\n-r /dev/zero\n'
[[ $status -eq 3 ]] || fail "the ring exits $status, want 3"
expect_once MPS701 findings requirements.txt 2 "a.in's pin, at its include"
expect_once MPS701 findings requirements-gpu.txt 1 "requirements-gpu.txt's own pin"
[[ $(count MPS701 findings requirements.txt 2) -eq 1 ]] || fail "requirements-gpu.txt's pin was repeated"
expect_once include-outside-root diagnostics requirements-gpu.txt 3 "/dev/zero in the ring"
echo "include cycles hide no finding and no refused include"
