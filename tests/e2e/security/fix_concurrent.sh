#!/usr/bin/env bash
# Two `fix --apply` runs on one tree at once (docs/fix.md, "Writing files"):
#   - a file another fix holds locked is not written, and the run says so:
#     exit 3, "Fixed 0 findings in 0 files; 1 file not written";
#   - two runs racing over many files leave every file exactly as one run
#     alone would, no temporary file behind, and each summary counts only
#     the files that run wrote (the others each have a diagnostic).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"
finding='import torch\nx = torch.zeros(3).cuda()\ny = torch.ones(2).cuda()\n'

# A file locked by another fix (flock, as fix takes it).
mkdir -p "$work/locked"
printf "$finding" >"$work/locked/a.py"
cp "$work/locked/a.py" "$work/a.orig"
if command -v flock >/dev/null; then
  status=0
  flock "$work/locked/a.py" "$binary" fix --apply --no-git "$work/locked" >/dev/null 2>"$work/err" || status=$?
  [[ $status -eq 3 ]] || fail "a locked file must exit 3, got $status: $(cat "$work/err")"
  cmp -s "$work/locked/a.py" "$work/a.orig" || fail "the locked file was written"
  grep -q 'a.py: error: another process is fixing this file' "$work/err" || fail "no diagnostic: $(cat "$work/err")"
  grep -q '^Fixed 0 findings in 0 files .*1 file not written' "$work/err" || fail "summary: $(cat "$work/err")"
fi

# Two runs racing over the same files, several rounds. Each file is written
# by exactly one run: the other either scans it already fixed (nothing to
# do) or finds it changed since its scan, replaced or locked, and refuses.
# Where strace works, the renames each run really made are counted against
# its summary.
files=40
mkdir -p "$work/reference"
for i in $(seq 1 $files); do printf "$finding" >"$work/reference/m$i.py"; done
"$binary" fix --apply --no-git "$work/reference" >/dev/null 2>&1
traced=false
# LeakSanitizer refuses to run under ptrace and, with abort_on_error, aborts
# the traced run; the untraced reference run above still checks for leaks.
no_leak_check="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null && traced=true
run_fix() { # run number
  if $traced; then
    env "$no_leak_check" strace -f -qq -e trace=rename,renameat,renameat2 -o "$work/trace$1" \
      "$binary" fix --apply --no-git "$work/race" >/dev/null 2>"$work/err$1"
  else
    "$binary" fix --apply --no-git "$work/race" >/dev/null 2>"$work/err$1"
  fi
}
for round in 1 2 3 4 5; do
  rm -rf "$work/race"
  mkdir -p "$work/race"
  for i in $(seq 1 $files); do printf "$finding" >"$work/race/m$i.py"; done
  run_fix 1 &
  first=$!
  run_fix 2 &
  second=$!
  status1=0 status2=0
  wait $first || status1=$?
  wait $second || status2=$?
  for i in $(seq 1 $files); do
    cmp -s "$work/race/m$i.py" "$work/reference/m$i.py" || fail "round $round: m$i.py differs from one fix alone"
  done
  leftovers=$(find "$work/race" -name '.mpsaudit-fix-*')
  [[ -z $leftovers ]] || fail "round $round: temporary files left: $leftovers"
  total_written=0
  for run in 1 2; do
    err=$work/err$run
    status_var=status$run
    written=$(sed -n 's/^Fixed [0-9]* findings\{0,1\} in \([0-9]*\) files\{0,1\}.*/\1/p' "$err")
    fixed=$(sed -n 's/^Fixed \([0-9]*\) findings\{0,1\}.*/\1/p' "$err")
    [[ -n $written ]] || fail "round $round run $run: no summary: $(cat "$err")"
    [[ $fixed -eq $((written * 2)) ]] || fail "round $round run $run: $fixed findings for $written files"
    if $traced; then
      renamed=$(grep -c -E 'rename.*"m[0-9]+\.py"(, [0-9]+)?\) = 0' "$work/trace$run" || true)
      [[ $renamed -eq $written ]] || fail "round $round run $run: says $written files written, renamed $renamed"
    fi
    refused=$(grep -c -E 'm[0-9]+\.py: error: (the file changed since (fix|the scan) read it|another process is fixing this file)' "$err" || true)
    if [[ $refused -gt 0 ]]; then
      [[ ${!status_var} -eq 3 ]] || fail "round $round run $run: refusals must exit 3, got ${!status_var}"
      grep -q "; $refused files\{0,1\} not written" "$err" || fail "round $round run $run: summary: $(tail -1 "$err")"
    else
      [[ ${!status_var} -eq 0 ]] || fail "round $round run $run: exit ${!status_var}: $(cat "$err")"
    fi
    total_written=$((total_written + written))
  done
  [[ -n ${FIX_CONCURRENT_VERBOSE:-} ]] && echo "round $round: $(tail -1 "$work/err1") / $(tail -1 "$work/err2")"
  [[ $total_written -eq $files ]] || fail "round $round: the runs say they wrote $total_written files of $files"
done
echo "ok"
