#!/usr/bin/env bash
# Paths read from the current directory, as ripgrep and ruff print them: a
# file argument, a subdirectory and a whole tree, run from the tree's top, from
# inside it and from below it, in text, JSON and SARIF. Text prints the path the
# current directory can open; JSON's `root` joined with a finding's `path` is
# that path; SARIF URIs stay relative to SRCROOT, whose absolute URI is the
# directory they start from (a single file's directory, never the file).
set -euo pipefail
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/tree/pkg/eval"
printf 'import torch\n\n\ndef run(x):\n    return x.cuda()\n' >"$work/tree/pkg/eval/linear.py"
printf 'import torch\n' >"$work/tree/pkg/__init__.py"
target=$(cd "$work/tree/pkg/eval" && pwd -P)/linear.py

# check CWD ARG EXPECTED: scanning ARG from CWD names the finding EXPECTED:5.
# GIT_OPTION is --no-git (walk the tree) or empty (list it as git does).
GIT_OPTION=--no-git
check() {
  local cwd=$1 arg=$2 expected=$3 out
  out=$(cd "$cwd" && "$binary" scan $GIT_OPTION --fail-on never "$arg" 2>/dev/null)
  grep -q "^$expected:5:" <<<"$out" || fail "text, '$arg' from $cwd: no '$expected:5:' in: $out"
  if grep -q "linear.py/linear.py" <<<"$out"; then fail "text, '$arg' from $cwd: a file path doubled"; fi
  (cd "$cwd" && "$binary" scan $GIT_OPTION --fail-on never "$arg" --format json 2>/dev/null) >"$work/report.json"
  (cd "$cwd" && "$binary" scan $GIT_OPTION --fail-on never "$arg" --format sarif 2>/dev/null) >"$work/report.sarif"
  python3 - "$work/report.json" "$work/report.sarif" "$cwd" "$expected" "$target" <<'PY' ||
import json, os, sys
from urllib.parse import unquote, urlparse
json_path, sarif_path, cwd, expected, target = sys.argv[1:]
report = json.load(open(json_path))
paths = [os.path.normpath(os.path.join(report["root"], f["path"])) for f in report["findings"]]
assert os.path.normpath(expected) in paths, f"JSON: root {report['root']!r} + path gives {paths}, not {expected}"
assert all(os.path.exists(os.path.join(cwd, p)) for p in paths), f"JSON: {paths} do not exist from {cwd}"
run = json.load(open(sarif_path))["runs"][0]
base = unquote(urlparse(run["originalUriBaseIds"]["SRCROOT"]["uri"]).path)
assert base.endswith("/"), f"SARIF: SRCROOT {base} is not a directory URI"
for result in run["results"]:
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location.get("uriBaseId") == "SRCROOT", f"SARIF: no uriBaseId in {location}"
    assert not location["uri"].startswith(("/", "file:")), f"SARIF: absolute URI {location['uri']}"
    resolved = os.path.realpath(os.path.join(base, unquote(location["uri"])))
    assert resolved == target, f"SARIF: {base} + {location['uri']} is {resolved}, not {target}"
PY
    fail "JSON/SARIF, '$arg' from $cwd"
}

# From the top of the tree.
check "$work/tree" pkg/eval/linear.py pkg/eval/linear.py
check "$work/tree" pkg/eval pkg/eval/linear.py
check "$work/tree" . pkg/eval/linear.py
check "$work/tree" pkg pkg/eval/linear.py
# From inside it.
check "$work/tree/pkg" eval/linear.py eval/linear.py
check "$work/tree/pkg/eval" linear.py linear.py
check "$work/tree/pkg/eval" . linear.py
# From below it: the paths climb back up.
check "$work/tree/pkg/eval" .. ../eval/linear.py
check "$work/tree/pkg/eval" ../eval/linear.py ../eval/linear.py

# Several roots outside git: the first root's paths are relative to it, the
# others prefixed with their root, a file root's by its directory (never the
# file's path twice: pkg/eval/linear.py/linear.py).
several=$(cd "$work/tree" && "$binary" scan --no-git --no-cache --fail-on never pkg/__init__.py pkg/eval/linear.py 2>/dev/null)
grep -q "^pkg/eval/linear.py:5:" <<<"$several" || fail "two file roots: no 'pkg/eval/linear.py:5:' in: $several"
several=$(cd "$work/tree" && "$binary" scan --no-git --no-cache --fail-on never pkg/__init__.py pkg/eval/ 2>/dev/null)
grep -q "^pkg/eval/linear.py:5:" <<<"$several" || fail "a file and a directory root: no 'pkg/eval/linear.py:5:' in: $several"

# Inside a git work tree, files named on the command line are scanned from the
# current directory (as pre-commit names them): the same paths.
git -C "$work/tree" init -q
GIT_OPTION=
check "$work/tree" pkg/eval/linear.py pkg/eval/linear.py
check "$work/tree/pkg" eval/linear.py eval/linear.py
check "$work/tree/pkg/eval" ../eval/linear.py ../eval/linear.py
check "$work/tree" pkg pkg/eval/linear.py
# GitHub annotations name files from the repository's top, wherever the scan ran.
annotation=$(cd "$work/tree/pkg/eval" && "$binary" scan --fail-on never ../eval/linear.py --format github 2>/dev/null)
grep -q "^::warning file=pkg/eval/linear.py,line=5," <<<"$annotation" || fail "github: $annotation"
echo "relative paths: ok"
