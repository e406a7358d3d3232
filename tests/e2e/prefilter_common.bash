# Shared by prefilter_identical.sh and prefilter_identical_devset.sh: scans a
# tree with the Python prefilter and without it (MPSAUDIT_NO_PREFILTER=1)
# and fails unless the JSON reports are identical. Needs $binary and $work;
# leaves the prefiltered scan's --profile output in $work/profile.
fail() { echo "FAIL: $*" >&2; exit 1; }

compare_reports() { # tree label
  local tree=$1 label=$2 status=0
  "$binary" scan --no-git --format json -o "$work/prefiltered.json" --profile "$tree" 2>"$work/profile" ||
    status=$?
  [[ $status -le 3 ]] || fail "$label: scan exited $status: $(cat "$work/profile")"
  status=0
  MPSAUDIT_NO_PREFILTER=1 "$binary" scan --no-git --format json -o "$work/full.json" "$tree" 2>/dev/null ||
    status=$?
  [[ $status -le 3 ]] || fail "$label: full scan exited $status"
  cmp -s "$work/prefiltered.json" "$work/full.json" ||
    fail "$label: the prefiltered report differs from the full one: $(diff <(python3 -m json.tool "$work/full.json") <(python3 -m json.tool "$work/prefiltered.json") | head -20)"
}
