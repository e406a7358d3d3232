#!/usr/bin/env bash
# Every path a human-readable report prints opens from the current
# directory: findings, the entry table, the reasons, the decision, the
# effort and what would change, in text (piped, --full, and concise on a
# terminal), summary, Markdown and GitHub annotations; for a subfolder
# scanned from its parent, for two folders in one scan, and for a folder and
# a file of the current directory. A path that is
# one of mpsaudit's own docs or rules files (docs/effort-model.md) is the
# tool's, not the tree's, and is allowed; so is text quoted from the tree in
# backticks or double quotes (a CMake file's source list, a documented
# command), unless it is
# a location (path:line).
# Usage: paths_from_cwd.sh <mpsaudit binary> <source dir>
set -euo pipefail
binary=$(realpath "$1") source_dir=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset MPSAUDIT_RULES_DIR COLUMNS
export TERM=xterm
samples=(outcome-keep-linux outcome-dual outcome-adapt outcome-dual-sibling-entry cuda-extension)
mkdir -p "$work/parent"
for sample in "${samples[@]}"; do cp -r "$source_dir/samples/$sample" "$work/parent/"; done
cd "$work/parent"
scan=(scan --no-git --no-cache --fail-on never --color never)
run_formats() { # NAME ROOT...
  local name=$1
  shift
  for format in text summary md github; do
    "$binary" "${scan[@]}" --format "$format" "$@" >"$work/$name.$format" 2>/dev/null
  done
  "$binary" "${scan[@]}" --full "$@" >"$work/$name.full" 2>/dev/null
  if command -v script >/dev/null; then
    script -qec "stty cols 100; $binary ${scan[*]} $* 2>/dev/null" /dev/null </dev/null | tr -d '\r' \
      >"$work/$name.terminal"
  fi
}
for sample in "${samples[@]}"; do run_formats "$sample" "$sample"; done
run_formats two-roots outcome-keep-linux outcome-dual
# A directory and a file of the current directory.
printf 'import torch\nx = torch.zeros(3).cuda()\n' >loose.py
run_formats dir-and-file outcome-keep-linux loose.py
python3 - "$work" "$work/parent" "$source_dir" <<'PY' || fail "paths that do not open from the current directory"
import os, pathlib, re, sys
work, cwd, source = sys.argv[1:]
extensions = r"(?:py|ipynb|cu|cuh|cpp|cc|cxx|c|h|hpp|txt|toml|cfg|yaml|yml|sh|json|cmake|in)"
# A relative path with an extension, or with a slash: "model/attn.py:3",
# "csrc/ops". Words joined by a slash in prose ("device/dtype") are told
# apart by not existing in the tree, so the samples avoid such words.
path = re.compile(r"(?<![\w/.@:-])((?:\.\./)*[\w.+-]+(?:/[\w.+-]+)*\." + extensions + r"|[\w.+-]+(?:/[\w.+-]+)+)(?::\d+)?(?![\w(])")
prose_pairs = {"NVIDIA/AMD", "device/dtype", "try/except", "seed/RNG"}
# Headers of libraries the code includes, named in messages.
library_headers = re.compile(r"^(ATen|c10|torch|cuda|cub|thrust|cutlass|pybind11)/")
bad = []
for report in sorted(pathlib.Path(work).glob("*.*")):
    if report.is_dir():
        continue
    for number, line in enumerate(report.read_text(encoding="utf-8").splitlines(), 1):
        line = re.sub(r"https?://\S+", " ", line)
        # A code line shows the tree's text, not a path the report names.
        if re.match(r"^\s+(\d+ |cell \d+:\d+ )?\|", line):
            continue
        # A finding's message may name its own file by its name ("setup.py
        # builds ...").
        own = re.search(r"([^\s`|:,=]+)(?::\d+|,line=)", line)
        own_name = os.path.basename(own.group(1)) if own else None
        for match in path.finditer(line):
            token = match.group(1).rstrip(".")
            after = line[match.end():match.end() + 1]
            before = line[match.start() - 1:match.start()] if match.start() else ""
            if "\u2026" in (after, before) or (before and before in "<'") or token.startswith("."):
                continue  # cut at the terminal's edge, an #include's name, a suffix list
            if line[:match.start()].endswith(("&lt;", "name: ")):
                continue  # an #include's name in Markdown; an entry found by its file name
            quoted = line[:match.start()].count("`") % 2 or line[:match.start()].count('"') % 2
            if quoted and not match.group(0).endswith(tuple("0123456789")):
                continue  # quoted from the tree (a CMake source list, a documented command)
            if line[match.end():match.end() + 2] == ": ":
                continue  # a label: an entry point found by its name ("hubconf.py: loads models")
            if token in prose_pairs or token == own_name or library_headers.match(token) or os.path.exists(os.path.join(cwd, token)):
                continue
            # Without an extension, words joined by slashes ("CPU/Python")
            # are a path only when they start with a directory of the tree.
            first = token.split("/")[0]
            if not re.search(r"\." + extensions + "$", token) and not any(
                    os.path.exists(os.path.join(cwd, root, first)) for root in [""] + os.listdir(cwd)):
                continue
            if token.startswith(("docs/", "rules/")) and os.path.exists(os.path.join(source, token)):
                continue
            bad.append(f"{report.name}:{number}: {token}: {line.strip()[:160]}")
if bad:
    tokens = {}
    for entry in bad:
        tokens.setdefault(entry.split(": ")[1], []).append(entry)
    for token, entries in sorted(tokens.items(), key=lambda item: -len(item[1])):
        print(f"{len(entries):4d} {token}  e.g. {entries[0][:200]}", file=sys.stderr)
    sys.exit(1)
PY
echo "every path in text, summary, Markdown and GitHub output opens from the current directory"
