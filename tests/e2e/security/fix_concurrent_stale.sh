#!/usr/bin/env bash
# Three `fix --apply` runs over one tree of 60 files at once, started a
# little apart, several rounds (issue 39): a run whose scan read a file
# before another run fixed it must not apply the edits it planned from that
# scan to the fixed file (a device fix applied twice). The promise
# (docs/fix.md, "Writing files"): fix edits a file only from the bytes its
# scan read, and replaces it only while it still holds them, checked under
# the file's lock; a file that changed since is left as it is (`file-changed`,
# exit 3). After each round every file equals what one run alone makes of
# it, a fourth `fix` finds nothing to change, no temporary file is left, and
# the runs together wrote each file exactly once.
set -euo pipefail
binary=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
files=60
runs=3
rounds=${FIX_STALE_ROUNDS:-6}
# A warm result cache shared by all runs, as CI keeps one (fix reads none
# today; if it ever does, this test covers it).
export XDG_CACHE_HOME=$work/cache
source='import torch
device = torch.device("cuda")
x = torch.zeros(3, device=device)
torch.cuda.synchronize()
'
make_tree() { # directory
  rm -rf "$1"
  mkdir -p "$1"
  for i in $(seq 1 $files); do printf '%s' "$source" >"$1/m$i.py"; done
}

# What one run alone makes of the tree, and how long it takes; fixing that
# again changes nothing.
make_tree "$work/reference"
timeout 120 "$binary" scan --no-git --fail-on never "$work/reference" >/dev/null 2>&1 || true
started=$(date +%s%N)
timeout 120 "$binary" fix --apply --no-git "$work/reference" >/dev/null 2>"$work/reference.err" ||
  fail "the single fix failed: $(cat "$work/reference.err")"
single_ms=$((($(date +%s%N) - started) / 1000000))
timeout 120 "$binary" fix --no-git "$work/reference" >"$work/reference.diff" 2>&1 ||
  fail "fixing the fixed tree again changes it: $(cat "$work/reference.diff")"
cmp -s "$work/reference/m1.py" <(printf '%s' "$source") && fail "the single fix changed nothing"

for round in $(seq 1 $rounds); do
  make_tree "$work/race"
  # Run k starts (k - 1) * gap after the first: its scan reads files while
  # the first run plans and writes them. The gap sweeps a share of one run.
  gap_ms=$((single_ms * (15 + 60 * (round - 1) / rounds) / 100))
  pids=()
  for run in $(seq 1 $runs); do
    (
      sleep "$(printf '0.%03d' $((gap_ms * (run - 1) % 1000)))"
      sleep $((gap_ms * (run - 1) / 1000))
      timeout 120 "$binary" fix --apply --no-git "$work/race" >/dev/null 2>"$work/err$run"
    ) &
    pids+=($!)
  done
  total_written=0
  for run in $(seq 1 $runs); do
    status=0
    wait "${pids[$((run - 1))]}" || status=$?
    err=$work/err$run
    [[ $status -eq 0 || $status -eq 3 ]] || fail "round $round run $run: exit $status: $(cat "$err")"
    written=$(sed -n 's/^Fixed [0-9]* findings\{0,1\} in \([0-9]*\) files\{0,1\}.*/\1/p' "$err")
    [[ -n $written ]] || fail "round $round run $run: no summary: $(cat "$err")"
    refused=$(grep -c -E 'm[0-9]+\.py: error: (the file changed since|another process is fixing this file)' "$err" || true)
    if [[ $refused -gt 0 ]]; then
      [[ $status -eq 3 ]] || fail "round $round run $run: refusals must exit 3, got $status"
    else
      [[ $status -eq 0 ]] || fail "round $round run $run: exit $status: $(cat "$err")"
    fi
    total_written=$((total_written + written))
  done
  for i in $(seq 1 $files); do
    cmp -s "$work/race/m$i.py" "$work/reference/m$i.py" ||
      fail "round $round (gap ${gap_ms} ms): m$i.py differs from one fix alone: $(diff "$work/reference/m$i.py" "$work/race/m$i.py")"
  done
  status=0
  timeout 120 "$binary" fix --no-git "$work/race" >"$work/again.diff" 2>&1 || status=$?
  [[ $status -eq 0 ]] || fail "round $round: a second fix still changes the tree: $(head -20 "$work/again.diff")"
  leftovers=$(find "$work/race" -name '.mpsaudit-fix-*')
  [[ -z $leftovers ]] || fail "round $round: temporary files left: $leftovers"
  [[ $total_written -eq $files ]] || fail "round $round: the runs say they wrote $total_written files of $files"
  [[ -n ${FIX_CONCURRENT_VERBOSE:-} ]] &&
    echo "round $round (gap ${gap_ms} ms): $(tail -qn1 "$work"/err{1,2,3} | tr '\n' '/')"
done
echo "fix concurrent stale: ok"
