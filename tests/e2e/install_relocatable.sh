#!/usr/bin/env bash
# `cmake --install` puts the binary in bin/, rules (and coverage tables)
# under share/mpsaudit/ and the C++/CUDA front end's plugin under
# <libdir>/mpsaudit/; the installed binary finds them relative to itself,
# from the prefix and from a copy moved elsewhere with its data, whether it
# is called by path or by name through PATH.
# Usage: install_relocatable.sh <mpsaudit binary> <repository root>
set -euo pipefail
BIN=$(realpath "$1")
ROOT=$(realpath "$2")
BUILD=$(dirname "$BIN") # the binary lives at the top of its build tree
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset MPSAUDIT_RULES_DIR MPSAUDIT_COVERAGE_DIR
fail() { echo "FAIL: $*"; exit 1; }
# has_meta_rule <mpsaudit>: whether the catalog it loads has MPS001 (the
# output is captured first: grep -q closing the pipe early would kill it).
has_meta_rule() {
  local listing
  listing=$("$1" rules --json) || fail "$1 rules --json failed"
  grep -q '"MPS001"' <<<"$listing"
}

cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
PREFIX="$WORK/prefix"
[ -x "$PREFIX/bin/mpsaudit" ] || fail "no bin/mpsaudit in the prefix"
[ -f "$PREFIX/share/mpsaudit/rules/meta.toml" ] || fail "rules are not under share/mpsaudit/rules"
ls "$PREFIX/share/mpsaudit/rules/"*.toml >/dev/null
if [ -d "$ROOT/runtime-probe/coverage" ]; then
  ls "$PREFIX/share/mpsaudit/coverage/"*.tsv >/dev/null || fail "coverage tables are not installed"
fi

mkdir -p "$WORK/project"
printf 'import torch\nx = torch.zeros(2).cuda()\n' > "$WORK/project/train.py"
printf '__global__ void k(float *x) { x[threadIdx.x] = 0; }\n' > "$WORK/project/k.cu"
plugin_installed=$(find "$PREFIX" -name libmpsaudit-cxx.so | head -1)
if [ -e "$BUILD/libmpsaudit-cxx.so" ]; then
  [ -n "$plugin_installed" ] || fail "the C++/CUDA front end's plugin is not installed"
  # Its parses run in the worker program beside it (cxx_plugin.h).
  [ -x "$(dirname "$plugin_installed")/mpsaudit-parse-worker" ] ||
    fail "mpsaudit-parse-worker is not installed beside $plugin_installed"
fi

# check_loads_own_plugin <binary>: a C++ file makes the binary load the
# plugin installed beside it, not the build tree's. --no-cache: a warm result
# cache answers for the file without loading the plugin at all.
check_loads_own_plugin() {
  local binary=$1 prefix
  prefix=$(dirname "$(dirname "$binary")")
  [ -n "$plugin_installed" ] || return 0
  LD_DEBUG=files "$binary" scan "$WORK/project" --no-git --no-cache --format json -o /dev/null 2>"$WORK/ld.log" || true
  grep -q "file=$prefix/.*libmpsaudit-cxx.so" "$WORK/ld.log" ||
    fail "$binary did not load the plugin under $prefix: $(grep -o 'file=[^ ]*libmpsaudit-cxx.so' "$WORK/ld.log")"
}

# check_uses_own_data <binary>: the binary loads the rules beside it. To prove
# it (and not the source tree it was built from), drop one rules file from
# that copy and watch its rule disappear.
check_uses_own_data() {
  local binary=$1 data
  data="$(dirname "$(dirname "$binary")")/share/mpsaudit"
  has_meta_rule "$binary" || fail "$binary: MPS001 missing before the test"
  local out
  out=$("$binary" scan "$WORK/project" --no-git --format json 2>/dev/null || true)
  grep -q '"MPS201"' <<<"$out" || fail "$binary: the scan did not find MPS201"
  mv "$data/rules/meta.toml" "$WORK/meta.toml.aside"
  if has_meta_rule "$binary"; then
    fail "$binary does not read the rules in $data"
  fi
  mv "$WORK/meta.toml.aside" "$data/rules/meta.toml"
}

check_uses_own_data "$PREFIX/bin/mpsaudit"
check_loads_own_plugin "$PREFIX/bin/mpsaudit"

# Moved elsewhere with its data (a relocated prefix, e.g. a tarball).
mv "$PREFIX" "$WORK/elsewhere"
check_uses_own_data "$WORK/elsewhere/bin/mpsaudit"
check_loads_own_plugin "$WORK/elsewhere/bin/mpsaudit"

# Called by name through PATH, and through a symlink on PATH (Homebrew links
# bin/mpsaudit from its Cellar).
mkdir -p "$WORK/links"
ln -s "$WORK/elsewhere/bin/mpsaudit" "$WORK/links/mpsaudit"
PATH="$WORK/elsewhere/bin:$PATH" has_meta_rule mpsaudit || fail "not usable by name on PATH"
mv "$WORK/elsewhere/share/mpsaudit/rules/meta.toml" "$WORK/meta.toml.aside"
if PATH="$WORK/links:$PATH" has_meta_rule mpsaudit; then
  fail "called by name through a symlink, the binary does not read its own data"
fi
mv "$WORK/meta.toml.aside" "$WORK/elsewhere/share/mpsaudit/rules/meta.toml"
echo "PASS: install layout and relocation"
