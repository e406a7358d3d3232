#!/usr/bin/env bash
# Every entry of the scanned tree is accounted for: read (the report's
# `files`) or listed in `skipped` with a reason, never dropped silently
# (docs/security.md, "File enumeration and git"). The tree mixes kinds no
# front end reads (.adoc, .csv, .txt, a workflow .yml, a binary), a FIFO
# named pipe.py, a symlink to /dev/null named x.py, a symlink to a
# directory, a dangling symlink, node_modules, a nested repository and
# ignored files (an ignored directory counts as one entry, `gitignored`);
# the scan must not block on the FIFO, and files + skipped must equal the
# tree's entries, with the JSON summary agreeing. The same with --no-git,
# where ignored files are read or skipped like the others.
# Usage: git_file_accounting.sh <mpsaudit binary> <source dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }

git init -q -b main "$WORK/repo"
cd "$WORK/repo"
git config user.email lab@example.org
git config user.name "A Lab"
mkdir -p src docs/guide .github/workflows data node_modules/pkg real
printf 'import torch\ntorch.cuda.synchronize()\n' >src/train.py
printf '# Title\n' >docs/guide/page.adoc
printf 'a,b\n1,2\n' >data/table.csv
printf 'notes\n' >notes.txt
printf 'on: push\n' >.github/workflows/ci.yml
printf '\x00\x01\x02' >logo.png
printf 'torch\n' >requirements.txt
printf '# Readme\n' >README.md
printf 'module.exports = 1\n' >node_modules/pkg/index.js
printf 'import torch\n' >real/inner.py
printf 'build/\n*.log\n' >.gitignore
mkdir -p build && printf 'import torch\n' >build/gen.py
printf 'log\n' >run.log
mkfifo pipe.py
ln -s /dev/null x.py
ln -s real linked
ln -s missing.py dangling.py
git init -q nested && printf 'import torch\n' >nested/inner.py
git add -A -- . ':!nested'
git commit -q -m start

# The entries of the tree, as the accounting must see them: every file and
# symlink outside .git; node_modules, the nested repository and (with git)
# the ignored build/ as one entry each.
expected_entries() { # with-ignored (yes/no)
  python3 - "$1" <<'PY'
import os, sys
with_ignored = sys.argv[1] == "yes"
out = []
for top, dirs, files in os.walk("."):
    rel = os.path.relpath(top, ".")
    for d in list(dirs):
        path = os.path.normpath(os.path.join(rel, d))
        if d == ".git":
            dirs.remove(d)
        elif d in ("node_modules",) or (d == "nested" and not with_ignored):
            out.append(path)
            dirs.remove(d)
        elif d == "build" and not with_ignored:
            out.append(path)  # ignored: one entry, not entered
            dirs.remove(d)
        elif os.path.islink(os.path.join(top, d)):
            out.append(path)  # a symlink to a directory is an entry, not followed
            dirs.remove(d)
    for f in files:
        path = os.path.normpath(os.path.join(rel, f))
        if f == ".git":
            continue
        out.append(path)
print("\n".join(sorted(out)))
PY
}

check() { # report, with-ignored, label
  expected_entries "$2" >"$WORK/expected"
  python3 - "$1" "$WORK/expected" "$3" <<'PY' || exit 1
import collections, json, sys
report = json.load(open(sys.argv[1]))
expected = [line for line in open(sys.argv[2]).read().split("\n") if line]
label = sys.argv[3]
files = [f["path"] for f in report["files"]]
skipped = [s["path"] for s in report["skipped"]]
def fail(message):
    print("FAIL: %s: %s" % (label, message), file=sys.stderr)
    sys.exit(1)
if set(files) & set(skipped):
    fail("both read and skipped: %s" % sorted(set(files) & set(skipped)))
accounted = sorted(files + skipped)
if accounted != sorted(expected):
    fail("not accounted for: %s; unexpected: %s" % (sorted(set(expected) - set(accounted)),
                                                    sorted(set(accounted) - set(expected))))
summary = report["summary"]
if summary["files"] + summary["skipped"] + summary["not_selected"] != len(expected):
    fail("summary %s does not add up to %d entries" % (summary, len(expected)))
if summary["skipped_by_reason"] != dict(collections.Counter(s["reason"] for s in report["skipped"])):
    fail("skipped_by_reason %s disagrees with the list" % summary["skipped_by_reason"])
reasons = {s["path"]: (s["reason"], s.get("detail", "")) for s in report["skipped"]}
want = {
    "pipe.py": ("not-regular-file", "a FIFO"),
    "x.py": ("not-regular-file", "symbolic link to a character device"),
    "linked": ("symlink-directory", ""),
    "dangling.py": ("broken-symlink", ""),
    "node_modules": ("excluded-directory", ""),
    "docs/guide/page.adoc": ("unknown-kind", ""),
    "data/table.csv": ("unknown-kind", ""),
    "notes.txt": ("unknown-kind", ""),
    ".github/workflows/ci.yml": ("unknown-kind", ""),
    "logo.png": ("unknown-kind", ""),
}
for path, reason in want.items():
    if reasons.get(path) != reason:
        fail("%s: got %s, expected %s" % (path, reasons.get(path), reason))
if label == "git":
    for path in ("build", "run.log"):
        if reasons.get(path) != ("gitignored", ""):
            fail("%s: got %s, expected gitignored" % (path, reasons.get(path)))
if not any(f["path"] == "src/train.py" for f in report["files"]):
    fail("src/train.py was not read")
PY
}

for mode in git no-git; do
  args=(--no-config --format json -o "$WORK/report.json" --fail-on never)
  [ "$mode" = no-git ] && args+=(--no-git)
  code=0
  timeout 120 "$BIN" scan . "${args[@]}" >"$WORK/out" 2>"$WORK/err" || code=$?
  [ "$code" = 0 ] || { cat "$WORK/err" >&2; fail "scan ($mode) exited $code"; }
  check "$WORK/report.json" "$([ "$mode" = git ] && echo no || echo yes)" "$mode"
  if [ "$mode" = git ]; then
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if any(s["path"]=="nested" and s["reason"]=="nested-repository" for s in r["skipped"]) else 1)' "$WORK/report.json" ||
      fail "the nested repository is not listed as skipped"
  fi
done

# The text report: one line of counts, no list.
"$BIN" scan . --no-config --fail-on never >"$WORK/text" 2>/dev/null
line=$(grep -c 'not read:' "$WORK/text" || true)
[ "$line" = 1 ] || fail "the text report should have one 'not read:' line: $(cat "$WORK/text")"
grep -q 'not-regular-file' "$WORK/text" || fail "the text report's count line lacks not-regular-file"
grep -q 'pipe.py' "$WORK/text" && fail "the text report lists skipped files one by one"
echo "PASS: every entry of the tree is read or skipped with a reason"
