#!/usr/bin/env bash
# Requirement includes and configured paths: a tree may name only regular
# files inside itself. `-r /dev/zero` (unbounded memory), `-r /dev/stdin` and a
# FIFO (a hang), `-r ../../etc/passwd`, a symlink out of the tree, a refused
# include deep in a chain, a 200-file chain, and a config's `baseline` or
# `effort-model` outside the tree: each scan ends within 60 s with a
# diagnostic naming the file and line, and nothing from outside is read.
set -euo pipefail
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

new_tree() { # name: a tree with a canary whose finding must survive
  mkdir -p "$work/$1"
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/$1/canary.py"
}
scan() { # tree, then extra options; JSON report in $work/report.json, exit status in $status
  local tree=$1; shift
  status=0
  timeout 60 "$binary" scan --no-git --format json "$@" "$work/$tree" >"$work/report.json" 2>"$work/stderr" ||
    status=$?
  [[ $status -ne 124 ]] || fail "$tree: the scan did not finish within 60 s"
  [[ $status -le 3 ]] || fail "$tree: the scan exited $status: $(cat "$work/stderr")"
}
has_canary() {
  python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if any(f['path']=='canary.py' and f['rule']=='MPS101' for f in d['findings']) else 1)" ||
    fail "$1: the canary's finding is missing"
}
has_diagnostic() { # path line code (path relative to the tree, or a suffix of it)
  python3 - "$work/report.json" "$@" <<'PY' || fail "no '$3' diagnostic at $1:$2: $(python3 -c "import json; print(json.load(open('$work/report.json'))['diagnostics'])")"
import json, sys
report, path, line, code = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.exit(0 if any(d["path"].endswith(path) and d["line"] == line and d["code"] == code
                  for d in json.load(open(report))["diagnostics"]) else 1)
PY
}
not_in_report() { # text that must not have been read
  ! grep -q -- "$1" "$work/report.json" || fail "'$1' from outside the tree reached the report"
}
printf 'leaked-package==6.6.6\n' >"$work/secret.txt"
updirs=$(printf '../%.0s' $(seq 30))

# -r /dev/zero: refused on its name, never read.
new_tree zero && printf 'numpy\n-r /dev/zero\n' >"$work/zero/requirements.txt"
scan zero
[[ $status -eq 3 ]] || fail "an include outside the tree exits $status, want 3"
has_canary "/dev/zero"; has_diagnostic requirements.txt 2 include-outside-root

# -r /dev/stdin with a standard input that never ends (a FIFO held open).
new_tree stdin && printf 'numpy\n-c /dev/stdin\n' >"$work/stdin/requirements.txt"
mkfifo "$work/never.fifo"
exec 3<>"$work/never.fifo"
scan stdin <"$work/never.fifo"
exec 3>&-
has_canary "/dev/stdin"; has_diagnostic requirements.txt 2 include-outside-root

# A FIFO inside the tree: not a regular file, never opened for reading.
new_tree fifo && printf 'numpy\n-r deps.fifo\n' >"$work/fifo/requirements.txt"
mkfifo "$work/fifo/deps.fifo"
scan fifo
has_canary "FIFO"; has_diagnostic requirements.txt 2 include-not-regular

# ../../etc/passwd, and a symlink inside the tree pointing out of it.
new_tree escape && printf 'numpy\n-r %setc/passwd\n-r link.in\n' "$updirs" >"$work/escape/requirements.txt"
ln -s "$work/secret.txt" "$work/escape/link.in"
scan escape
has_canary "escapes"; has_diagnostic requirements.txt 2 include-outside-root
has_diagnostic requirements.txt 3 include-outside-root
not_in_report leaked-package; not_in_report 'root:x:'

# A refused include deep in a chain: reported at the file and line naming it.
new_tree nested && printf 'numpy\n-r deps/a.in\n' >"$work/nested/requirements.txt"
mkdir -p "$work/nested/deps"
printf 'scipy\n-r b.in\n' >"$work/nested/deps/a.in"
printf 'pandas\n-r ../../secret.txt\n' >"$work/nested/deps/b.in"
scan nested
has_canary "nested"; has_diagnostic deps/b.in 2 include-outside-root; not_in_report leaked-package

# A 200-file chain: cut at the depth limit, quickly.
new_tree deep && printf -- '-r d0.in\n' >"$work/deep/requirements.txt"
for i in $(seq 0 199); do printf 'pkg%d\n-r d%d.in\n' "$i" $((i + 1)) >"$work/deep/d$i.in"; done
scan deep
has_canary "deep chain"
python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if any(x['code']=='include-limit' for x in d['diagnostics']) else 1)" ||
  fail "the deep chain has no include-limit diagnostic"

# A config inside the tree may not name a baseline or effort model outside it.
new_tree config
printf 'baseline = "/etc/shadow"\n[assess]\neffort-model = "%setc/passwd"\n' "$updirs" >"$work/config/mpsaudit.toml"
scan config
[[ $status -eq 3 ]] || fail "a refused config path exits $status, want 3"
has_canary "config"; has_diagnostic mpsaudit.toml 1 config-path-refused; has_diagnostic mpsaudit.toml 3 config-path-refused

# ... nor through pyproject's [tool.mpsaudit] and a symlink: a baseline that
# would hide the canary's finding is not read.
new_tree hidden
"$binary" baseline write "$work/known-baseline" --no-git "$work/hidden" 2>/dev/null || true
[[ -s $work/known-baseline ]] || fail "baseline write made no baseline"
printf '[tool.mpsaudit]\nbaseline = "known"\n' >"$work/hidden/pyproject.toml"
ln -s "$work/known-baseline" "$work/hidden/known"
scan hidden
has_canary "a symlinked baseline"; has_diagnostic pyproject.toml 2 config-path-refused

# A baseline FIFO in the tree: refused, no hang.
new_tree fifo-baseline && printf 'baseline = "b.fifo"\n' >"$work/fifo-baseline/mpsaudit.toml"
mkfifo "$work/fifo-baseline/b.fifo"
scan fifo-baseline
has_canary "a FIFO baseline"; has_diagnostic mpsaudit.toml 1 config-path-refused

# The user's own --baseline may be anywhere.
scan hidden --no-config --baseline "$work/known-baseline"
[[ $status -eq 0 ]] || fail "--baseline outside the tree: exit $status, want 0: $(cat "$work/stderr")"
python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if not [f for f in d['findings'] if f['rule']=='MPS101' and not f.get('suppressed')] and not d['diagnostics'] else 1)" ||
  fail "the command line's --baseline was not applied"
echo "includes and configured paths stay inside the scanned tree"
