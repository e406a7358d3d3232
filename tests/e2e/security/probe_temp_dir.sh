#!/usr/bin/env bash
# `scan --probe` writes its JSON report and the probe's verdicts to a private
# temporary directory, and removes it on every way out: the probe succeeds,
# fails, or is stopped by SIGTERM to mpsaudit or by Ctrl-C (SIGINT to the
# process group). A stand-in mpsaudit-probe beside a copy of the binary plays
# the probe, so this runs without LibTorch.
set -euo pipefail
binary=$(realpath "$1") root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/bin" "$work/tree" "$work/tmp"
cp "$binary" "$work/bin/mpsaudit"
printf 'import torch\nx = torch.zeros(2).cuda()\n' >"$work/tree/train.py"
cat >"$work/bin/mpsaudit-probe" <<'PROBE'
#!/usr/bin/env bash
# Stand-in probe: --target T -o VERDICTS [--torch-version V] REPORT
verdicts= report=
while (($#)); do
  case $1 in -o) verdicts=$2; shift 2 ;; --target|--torch-version) shift 2 ;; *) report=$1; shift ;; esac
done
dirname "$report" >"$FAKE_PROBE_LOG"
case $FAKE_PROBE_MODE in
  ok) echo '{"tool": "mpsaudit-probe", "target": "cpu", "operators": []}' >"$verdicts" ;;
  fail) exit 1 ;;
  hang) exec sleep 60 ;;
esac
PROBE
chmod +x "$work/bin/mpsaudit-probe"
export MPSAUDIT_RULES_DIR="$root/rules" TMPDIR="$work/tmp" FAKE_PROBE_LOG="$work/probe-dir"

probe_dir() { # the directory the probe was given, once it has started
  for _ in $(seq 100); do [[ -s $work/probe-dir ]] && { cat "$work/probe-dir"; return; }; sleep 0.1; done
  fail "the probe did not start"
}
check_removed() { # case
  local directory
  directory=$(probe_dir)
  [[ $directory == "$work/tmp/mpsaudit-probe-"* ]] || fail "$1: the report was not in a private temporary directory: $directory"
  # After Ctrl-C, `wait` returns when `timeout` exits; mpsaudit, which got
  # the same SIGINT, may still be removing the directory: give it 20 s (under
  # AddressSanitizer on two loaded cores, exit with the leak check took over
  # 5 s once; the loop ends as soon as the directory is gone).
  for _ in $(seq 200); do [[ -e $directory ]] || break; sleep 0.1; done
  [[ ! -e $directory ]] || fail "$1: $directory was left behind"
  [[ -z $(ls -A "$work/tmp") ]] || fail "$1: left in the temporary directory: $(ls -A "$work/tmp")"
  rm -f "$work/probe-dir"
}
run_scan() { # mode; exit status in $status
  status=0
  FAKE_PROBE_MODE=$1 timeout 60 "$work/bin/mpsaudit" scan --no-git --probe --format json -o "$work/report.json" \
    "$work/tree" 2>"$work/stderr" || status=$?
}

run_scan ok
[[ $status -le 1 ]] || fail "scan --probe with a working probe exited $status: $(cat "$work/stderr")"
python3 -c "import json; assert json.load(open('$work/report.json'))['assessment']" || fail "no assessment"
check_removed "the probe succeeds"

run_scan fail
[[ $status -eq 2 ]] || fail "a failing probe exits $status, want 2"
grep -q 'mpsaudit-probe failed' "$work/stderr" || fail "a failing probe is not reported: $(cat "$work/stderr")"
check_removed "the probe fails"

# SIGTERM to mpsaudit alone (a CI timeout): passed on to the probe; mpsaudit
# then returns and cleans up.
FAKE_PROBE_MODE=hang timeout 60 "$work/bin/mpsaudit" scan --no-git --probe -o "$work/report.json" "$work/tree" \
  2>"$work/stderr" &
scan_pid=$!
probe_dir >/dev/null
kill -TERM "$scan_pid"
status=0
wait "$scan_pid" || status=$?
[[ $status -eq 2 ]] || fail "SIGTERM during the probe: exit $status, want 2: $(cat "$work/stderr")"
check_removed "SIGTERM during the probe"

# Ctrl-C: SIGINT to the whole process group, probe included.
if command -v setsid >/dev/null; then
  FAKE_PROBE_MODE=hang setsid timeout 60 "$work/bin/mpsaudit" scan --no-git --probe -o "$work/report.json" \
    "$work/tree" 2>"$work/stderr" &
  group=$!
  probe_dir >/dev/null
  kill -INT -- "-$group"
  wait "$group" || true
  check_removed "Ctrl-C during the probe"
fi
echo "probe temporary directory removed on success, failure, SIGTERM and Ctrl-C"
