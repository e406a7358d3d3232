#!/usr/bin/env bash
# `mpsaudit config init [DIR] [--force]` (docs/configuration.md): writes a
# first mpsaudit.toml with every key commented out at its default. The file
# reads back as the defaults; uncommented, its [assess] lines give the same
# thresholds as no config at all; it names every key the config reader
# knows; a second init refuses; --force replaces a symbolic link, never
# what the link points to.
# Usage: config_init.sh <mpsaudit binary> <repository root>
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset MPSAUDIT_RULES_DIR

mkdir -p "$work/repo"
cd "$work/repo"
"$binary" config init >"$work/out" || fail "config init exited $?"
grep -q '^wrote mpsaudit.toml' "$work/out" || fail "init says: $(cat "$work/out")"
[[ $(stat -c %a mpsaudit.toml) == 644 ]] || fail "mode $(stat -c %a mpsaudit.toml)"
[[ -z $(ls -A | grep -v '^mpsaudit.toml$') ]] || fail "left behind: $(ls -A)"

# As written, nothing is set: every line of `config --show` is a default.
"$binary" config --show . >"$work/show" || fail "config --show on the starter file"
if grep -v '^#\|^$\|^\[' "$work/show" | grep -v '# default'; then
  fail "the starter file sets something"
fi

# Every key the reader knows is in the file (the lists its errors print).
printf 'no-such-key = 1\n[assess]\nno-such-key = 1\n' >"$work/unknown.toml"
"$binary" config --show . --config "$work/unknown.toml" >/dev/null 2>"$work/err" || true
keys=$(sed -n 's/.*(known: \(.*\))$/\1/p' "$work/err" | tr ',' '\n' | sed 's/^ *//')
[[ $(wc -l <<<"$keys") -gt 15 ]] || fail "the known keys: $(cat "$work/err")"
while IFS= read -r key; do
  grep -q "^# $key = \|^\[$key\]$" mpsaudit.toml || fail "the starter file lacks $key"
done <<<"$keys"

# Uncommented, the [assess] defaults are the assessment's own: the same
# thresholds as a scan with no config.
sample=$root/samples/outcome-dual
"$binary" scan --no-git --no-cache --no-config --format json "$sample" >"$work/plain.json" 2>/dev/null || true
sed -n '/^\[assess\]/,/^\[roles\]/p' mpsaudit.toml | sed -n 's/^# \([a-z-]* = .*\)$/\1/p' |
  grep -v '^effort-model' >"$work/assess-lines"
{ echo '[assess]'; cat "$work/assess-lines"; } >"$work/assess.toml"
[[ $(wc -l <"$work/assess-lines") -ge 10 ]] || fail "[assess] defaults: $(cat "$work/assess-lines")"
"$binary" scan --no-git --no-cache --config "$work/assess.toml" --format json "$sample" >"$work/set.json" 2>/dev/null || true
python3 - "$work/plain.json" "$work/set.json" <<'PY' || fail "thresholds differ"
import json, sys
plain, spelled = (json.load(open(path))["assessment"] for path in sys.argv[1:])
assert plain["thresholds"] == spelled["thresholds"], (plain["thresholds"], spelled["thresholds"])
assert plain["decision"]["outcome"] == spelled["decision"]["outcome"]
PY

# A second init refuses and leaves the file alone.
echo '# mine' >>mpsaudit.toml
before=$(sha256sum mpsaudit.toml)
status=0; "$binary" config init 2>"$work/err" || status=$?
[[ $status -eq 2 ]] || fail "a second init exited $status, want 2"
grep -q 'mpsaudit.toml exists; `config init --force` replaces it' "$work/err" || fail "refusal: $(cat "$work/err")"
[[ $(sha256sum mpsaudit.toml) == "$before" ]] || fail "a refused init changed the file"

# --force on a link replaces the link; its target keeps its bytes.
echo 'precious' >"$work/outside"
mkdir -p "$work/linked" && ln -s "$work/outside" "$work/linked/mpsaudit.toml"
"$binary" config init "$work/linked" --force >/dev/null || fail "init --force exited $?"
[[ $(cat "$work/outside") == precious ]] || fail "init wrote through a symbolic link"
[[ -f $work/linked/mpsaudit.toml && ! -L $work/linked/mpsaudit.toml ]] || fail "the link was not replaced"

# The near cases: --force alone, and init with --show, are usage errors.
status=0; "$binary" config --force 2>/dev/null || status=$?
[[ $status -eq 2 ]] || fail "config --force exited $status, want 2"
status=0; "$binary" config init --show 2>/dev/null || status=$?
[[ $status -eq 2 ]] || fail "config init --show exited $status, want 2"
echo "config init: defaults, every key, refusal and links hold"
