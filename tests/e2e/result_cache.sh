#!/usr/bin/env bash
# The result cache (docs/cache.md) from the command line: a warm scan reports
# exactly what the cold one did on every sample; a truncated entry, two
# processes writing at once, a changed rule file and a read-only cache
# directory each leave the findings right.
set -euo pipefail
binary=$1
source_dir=$2
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cache=$work/cache

scan() { # output-file cache-options... -- tree
  local out=$1; shift
  local status=0
  "$binary" scan --no-git --format json --fail-on never "$@" >"$out" 2>"$out.err" || status=$?
  [[ $status -le 3 ]] || fail "scan $* exited $status: $(cat "$out.err")"
}
hits() { sed -n 's/.*result cache: \([0-9]*\) files from the cache, \([0-9]*\) parsed.*/\1 \2/p' "$1.err"; }
# Files whose result holds an error are parsed every time (docs/cache.md).
files_with_errors() {
  python3 -c "import json,sys; print(len({d['path'] for d in json.load(open(sys.argv[1]))['diagnostics'] if d['level'] == 'error'}))" "$1"
}

# Cold, warm and uncached reports are byte-identical on every sample.
for sample in "$source_dir"/samples/*/; do
  name=$(basename "$sample")
  scan "$work/$name.none" --no-cache "$sample"
  scan "$work/$name.cold" --cache-dir "$cache" "$sample"
  scan "$work/$name.warm" --cache-dir "$cache" --profile "$sample"
  cmp -s "$work/$name.none" "$work/$name.cold" || fail "$name: the cold cached report differs from --no-cache"
  cmp -s "$work/$name.cold" "$work/$name.warm" || fail "$name: the warm report differs from the cold one"
  read -r hit parsed <<<"$(hits "$work/$name.warm")"
  [[ $parsed -le $(files_with_errors "$work/$name.warm") && $hit -gt 0 ]] ||
    fail "$name: the warm scan parsed $parsed files ($hit from the cache)"
done
entries=$(find "$cache" -type f -regextype posix-extended -regex '.*/v[0-9]+/[0-9a-f]{2}/[0-9a-f]{64}' | wc -l)
others=$(find "$cache" -type f ! -name '.last-trim' -regextype posix-extended ! -regex '.*/v[0-9]+/[0-9a-f]{2}/[0-9a-f]{64}' | wc -l)
[[ $entries -gt 0 && $others -eq 0 ]] || fail "the cache holds $entries entries and $others other files"

# A truncated (or emptied) entry is a miss: rebuilt, never trusted.
tree=$source_dir/samples/cuda-extension/ # as the loop above named it
find "$cache" -type f -regextype posix-extended -regex '.*/[0-9a-f]{64}' | while read -r entry; do
  truncate -s $(($(stat -c %s "$entry") / 2)) "$entry"
done
scan "$work/truncated" --cache-dir "$cache" --profile "$tree"
cmp -s "$work/cuda-extension.none" "$work/truncated" || fail "truncated entries changed the report"
read -r hit parsed <<<"$(hits "$work/truncated")"
[[ $hit -eq 0 && $parsed -gt 0 ]] || fail "truncated entries were trusted ($hit hits)"
scan "$work/rebuilt" --cache-dir "$cache" --profile "$tree"
read -r hit parsed <<<"$(hits "$work/rebuilt")"
[[ $parsed -eq 0 ]] || fail "truncated entries were not rebuilt ($parsed parsed)"

# Two processes filling one cache at once, several times over: every entry
# they leave is whole, and a warm run agrees with them.
for round in 1 2 3; do
  rm -rf "$work/shared"
  scan "$work/a" --cache-dir "$work/shared" "$source_dir/samples" &
  first=$!
  scan "$work/b" --cache-dir "$work/shared" "$source_dir/samples" &
  second=$!
  wait $first || fail "the first concurrent scan failed (round $round)"
  wait $second || fail "the second concurrent scan failed (round $round)"
  cmp -s "$work/a" "$work/b" || fail "concurrent scans disagree (round $round)"
  scan "$work/c" --cache-dir "$work/shared" --profile "$source_dir/samples"
  cmp -s "$work/a" "$work/c" || fail "the warm scan after concurrent writers differs (round $round)"
  read -r hit parsed <<<"$(hits "$work/c")"
  [[ $parsed -le $(files_with_errors "$work/c") ]] ||
    fail "concurrent writers left $parsed unusable entries (round $round)"
done
[[ -z $(find "$work/shared" -name '.tmp.*') ]] || fail "concurrent writers left temporary files"

# A changed rule file invalidates the entries, by --rules-dir and by MPSAUDIT_RULES_DIR.
cp -r "$source_dir/rules" "$work/rules"
scan "$work/r1" --cache-dir "$cache" --rules-dir "$work/rules" "$tree"
scan "$work/r2" --cache-dir "$cache" --rules-dir "$work/rules" --profile "$tree"
read -r hit parsed <<<"$(hits "$work/r2")"
[[ $parsed -eq 0 ]] || fail "an unchanged rules directory missed the cache"
rule_file=$(grep -l '^message = "' "$work"/rules/*.toml | head -1)
[[ -n $rule_file ]] || fail "no rule file has a message"
sed -i '0,/^message = /s/^message = "/message = "(edited) /' "$rule_file"
scan "$work/r3" --cache-dir "$cache" --rules-dir "$work/rules" --profile "$tree"
read -r hit parsed <<<"$(hits "$work/r3")"
[[ $hit -eq 0 ]] || fail "an edited rule file still hit the cache ($hit hits)"
sed -i 's/^message = "(edited) /message = "(edited twice) /' "$rule_file"
MPSAUDIT_RULES_DIR=$work/rules scan "$work/r4" --cache-dir "$cache" --profile "$tree"
read -r hit parsed <<<"$(hits "$work/r4")"
[[ $hit -eq 0 ]] || fail "an edited rule file under MPSAUDIT_RULES_DIR still hit the cache ($hit hits)"

# A read-only cache directory: one note, the same report, the same exit code.
# Root writes through file permissions, so as root a path under a regular
# file stands in for a directory that cannot be written.
if [[ $(id -u) -eq 0 ]]; then
  touch "$work/not-a-directory"
  readonly_cache=$work/not-a-directory/cache
else
  mkdir -p "$work/readonly" && chmod a-w "$work/readonly"
  readonly_cache=$work/readonly
fi
scan "$work/ro" --cache-dir "$readonly_cache" "$tree"
cmp -s "$work/cuda-extension.none" "$work/ro" || fail "a read-only cache changed the report"
[[ $(grep -c 'note: the result cache .* cannot be written' "$work/ro.err") -eq 1 ]] ||
  fail "a read-only cache did not print exactly one note: $(cat "$work/ro.err")"

# The default place is $XDG_CACHE_HOME/mpsaudit; --no-cache writes nothing.
XDG_CACHE_HOME=$work/xdg scan "$work/x" "$tree"
compgen -G "$work/xdg/mpsaudit/v[0-9]*" >/dev/null || fail "the default cache is not under \$XDG_CACHE_HOME/mpsaudit"
XDG_CACHE_HOME=$work/xdg-off scan "$work/y" --no-cache "$tree"
[[ ! -e $work/xdg-off ]] || fail "--no-cache created a cache"
echo "result cache: ok"
