#!/usr/bin/env bash
# The C++/CUDA front end is a plugin loaded on first use
# (analyzer/frontend/cxx/cxx_plugin.h):
#   - the analyzer binary itself does not link Clang or LLVM;
#   - a scan without C/C++/CUDA files never loads the plugin, so it works
#     even where the plugin is missing;
#   - C++/CUDA files are parsed (mode "ast") when the plugin is there;
#   - when it is missing or foreign, each C++/CUDA file gets a diagnostic
#     naming it, the scan exits 3, and every other file's findings stay.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if ldd "$binary" | grep -qiE 'libclang|libLLVM'; then
  fail "the analyzer links Clang/LLVM directly: $(ldd "$binary" | grep -iE 'libclang|libLLVM')"
fi

# No C++ files: the plugin is never needed, even when it cannot be found.
status=0
MPSAUDIT_CXX_PLUGIN=/nonexistent/libmpsaudit-cxx.so "$binary" scan --no-git "$root/samples/portable-light" \
  --format json -o "$work/python.json" --fail-on never 2>"$work/python.err" || status=$?
[[ $status -eq 0 ]] || fail "a Python-only scan without the plugin exits $status: $(cat "$work/python.err")"
python3 - "$work/python.json" <<'PY' || fail "a Python-only scan reported the missing plugin"
import json, sys
report = json.load(open(sys.argv[1]))
assert not [d for d in report["diagnostics"] if d["code"] == "cxx-frontend-unavailable"], report["diagnostics"]
assert report["findings"], "no findings"
PY

# With the plugin: C++/CUDA files are parsed.
"$binary" scan --no-git "$root/samples/cuda-extension" --format json -o "$work/with.json" --fail-on never 2>/dev/null
python3 - "$work/with.json" <<'PY' || fail "the plugin did not parse the CUDA sample"
import json, sys
report = json.load(open(sys.argv[1]))
modes = {f["path"]: f["mode"] for f in report["files"] if f["kind"] in ("cuda", "cxx")}
assert modes and "ast" in modes.values(), modes
assert any(f["rule"].startswith("MPS8") for f in report["findings"]), "no C++ findings"
PY

# Without it (missing, then a library that is not the plugin).
for plugin in /nonexistent/libmpsaudit-cxx.so "$(ldd "$binary" | awk '/libc\.so/ {print $3}')"; do
  status=0
  MPSAUDIT_CXX_PLUGIN=$plugin "$binary" scan --no-git "$root/samples/cuda-extension" --format json \
    -o "$work/without.json" --fail-on never 2>/dev/null || status=$?
  [[ $status -eq 3 ]] || fail "a scan that could not read C++ files with $plugin exits $status, want 3"
  python3 - "$work/with.json" "$work/without.json" "$plugin" <<'PY' || fail "missing plugin $plugin handled badly"
import json, sys
with_plugin, without, plugin = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
cxx_files = {f["path"] for f in with_plugin["files"] if f["kind"] in ("cuda", "cxx")}
reported = {d["path"] for d in without["diagnostics"] if d["code"] == "cxx-frontend-unavailable"}
assert reported == cxx_files, (reported, cxx_files)
assert all(plugin in d["message"] for d in without["diagnostics"] if d["code"] == "cxx-frontend-unavailable")
others = lambda r: sorted((f["path"], f["rule"], f["line"]) for f in r["findings"] if f["path"] not in cxx_files)
assert others(without) == others(with_plugin), "findings of other files changed"
PY
done
echo "ok: the C++/CUDA front end loads on demand"
