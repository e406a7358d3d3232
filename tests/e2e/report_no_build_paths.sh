#!/usr/bin/env bash
# No report names the machine that built the binary: a copy of a sample,
# scanned from outside the source and build trees, in every format (text,
# JSON, SARIF, Markdown, HTML, GitHub annotations), must not contain the
# absolute path of the build directory or of the source directory. Data files
# are named as the install names them (rules/effort.toml).
set -euo pipefail
binary=$(realpath "$1") source_dir=$(realpath "$2")
build_dir=$(dirname "$binary")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for sample in outcome-dual cxx-cpu-fallback amp-defaults; do
  rm -rf "$work/tree"
  cp -r "$source_dir/samples/$sample" "$work/tree"
  out="$work/$sample"
  mkdir -p "$out"
  status=0
  (cd "$work" && "$binary" scan tree --fail-on never -o "$out/report.txt" -o "$out/report.json" \
    -o "$out/report.sarif" -o "$out/report.md" -o "$out/report.html" 2>/dev/null) || status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$sample: scan exited $status"
  (cd "$work" && "$binary" scan tree --fail-on never --format github >"$out/report.github" 2>/dev/null) || true
  for format in txt json sarif md html github; do
    report="$out/report.$format"
    [[ -s $report ]] || fail "$sample: no $format report"
    for directory in "$build_dir" "$source_dir"; do
      if grep -qF "$directory" "$report"; then
        grep -nF "$directory" "$report" | head -3 >&2
        fail "$sample: the $format report names $directory"
      fi
    done
  done
  grep -q '"rules/effort.toml"' "$out/report.json" || fail "$sample: the JSON report does not name rules/effort.toml"
done
echo "reports name no build or source path: ok"
