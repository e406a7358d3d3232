#!/usr/bin/env bash
# `scan --progress`: under a pseudo-terminal (script(1)) the progress line
# appears on standard error and is cleared before the report; piped, with
# JSON on standard output, in CI or with --progress never it never appears;
# --progress always shows it anywhere. MPSAUDIT_PROGRESS_DELAY_MS=0 removes
# auto's one-second threshold so that a small tree shows it without sleeping.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.bash" "$1"
source_dir=$(realpath "$2")
command -v script >/dev/null || { echo "SKIP: script(1) is missing"; exit 77; }
cp -r "$source_dir/samples/outcome-dual" "$work/tree"
cd "$work"
export MPSAUDIT_PROGRESS_DELAY_MS=0
unset CI
export TERM=xterm
progress='mpsaudit: discovering files'
clear=$'\r\e[K'

# in_terminal ARGS...: the scan's standard output and error, as a terminal shows them.
in_terminal() { script -qec "$binary scan tree --fail-on never $*" /dev/null </dev/null; }

out=$(in_terminal)
grep -qF "$progress" <<<"$out" || fail "no progress line under a terminal: $out"
# The line is cleared before the report: the report starts after the last clear.
after_last_clear=${out##*"$clear"}
grep -qF "mpsaudit: " <<<"${after_last_clear%%$'\n'*}" && fail "the progress line is not cleared: $after_last_clear"
grep -q "findings" <<<"$after_last_clear" || fail "the report does not follow the cleared line"

out=$(in_terminal --format json)
grep -qF "$progress" <<<"$out" && fail "progress line with JSON on standard output"
out=$(in_terminal --progress never)
grep -qF "$progress" <<<"$out" && fail "progress line with --progress never"
out=$(CI=true in_terminal)
grep -qF "$progress" <<<"$out" && fail "progress line in CI"

out=$("$binary" scan tree --fail-on never 2>&1 | cat)
grep -qF "$progress" <<<"$out" && fail "progress line in a pipe"
grep -qF "$clear" <<<"$out" && fail "terminal control sequences in a pipe"
out=$("$binary" scan tree --fail-on never --progress always 2>&1 >/dev/null | cat)
grep -qF "$progress" <<<"$out" || fail "no progress line with --progress always"

# auto waits before it draws (about a second by default): a scan shorter than
# the wait shows nothing. A long wait keeps this independent of machine load.
out=$(MPSAUDIT_PROGRESS_DELAY_MS=60000 in_terminal)
grep -qF "$progress" <<<"$out" && fail "progress line on a scan shorter than the threshold"
"$binary" scan tree --progress sometimes >/dev/null 2>&1 && fail "--progress sometimes was accepted"
echo "progress line: ok"
