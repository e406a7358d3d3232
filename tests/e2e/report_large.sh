#!/usr/bin/env bash
# Large repositories get a summary. A generated tree with over 200 findings:
# the text report prints the entry points, the reasons grouped by cause and a
# count per directory instead of every finding, and `--full` prints every
# finding and reason. The Markdown report of the first dev-set repository
# with over 1,000 findings stays under 60 KB without `--full`, its reasons
# grouped with the full list in <details>; JSON keeps every deciding factor
# and groups each one once. The dev-set half reads ../shared/devset/repos
# (MPSAUDIT_DEVSET_DIR overrides it) as input only and is skipped when absent.
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
devset=${MPSAUDIT_DEVSET_DIR:-$root/../shared/devset}

# 30 model files with 10 hard-coded CUDA moves each: 300 findings.
tree=$work/tree
for part in alpha beta gamma; do
  mkdir -p "$tree/pkg/$part"
  for n in 0 1 2 3 4 5 6 7 8 9; do
    {
      echo "import torch"
      echo "class Block$n(torch.nn.Module):"
      echo "    def forward(self, x):"
      for i in 0 1 2 3 4 5 6 7 8 9; do echo "        x = x.cuda() + torch.ones($i).cuda()"; done
      echo "        return x"
    } >"$tree/pkg/$part/block_$n.py"
  done
done
(cd "$tree" && "$binary" scan --no-git . --fail-on never -o "$work/r.json" -o "$work/summary.txt" 2>/dev/null) ||
  fail "scan failed"
(cd "$tree" && "$binary" scan --no-git . --fail-on never --full >"$work/full.txt" 2>/dev/null) || fail "scan --full failed"
findings=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$work/r.json")
((findings > 200)) || fail "the generated tree has only $findings findings"

listed() { grep -cE '^[^ ].*:[0-9]+:[0-9]+: MPS[0-9]+ ' "$1" || true; }
[[ $(listed "$work/summary.txt") -eq 0 ]] || fail "the summary lists findings one by one"
grep -q '^Findings by directory$' "$work/summary.txt" || fail "no per-directory table in the summary"
grep -qE '^  pkg/(alpha|beta|gamma) +[0-9]+$' "$work/summary.txt" || fail "the per-directory table lacks pkg/<part>"
grep -q '^Why$' "$work/summary.txt" || fail "no grouped reasons in the summary"
grep -q -- '--full lists them' "$work/summary.txt" || fail "the summary does not say how to list everything"
grep -q '^Decision: ' "$work/summary.txt" || fail "the summary lacks the decision"
[[ $(listed "$work/full.txt") -eq $findings ]] || fail "--full lists $(listed "$work/full.txt") of $findings findings"
grep -q '^Every reason$' "$work/full.txt" || fail "--full does not list every reason"
echo "text: a summary above 200 findings ($findings), every finding with --full"

if [[ ! -d $devset/repos ]]; then
  echo "SKIP dev-set half: $devset/repos is absent"
  exit 0
fi
large=""
# Kernel libraries first (the most .cu/.cuh files): they have the most findings.
for repo in $(for dir in "$devset"/repos/*/; do
  echo "$(find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' \) | wc -l) $dir"
done | sort -rn | cut -d' ' -f2-); do
  status=0
  (cd "$repo" && "$binary" scan --no-git . --fail-on never -o "$work/d.json" -o "$work/d.md" -o "$work/d.txt" 2>/dev/null) ||
    status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$repo: scan exited $status"
  if (($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$work/d.json") > 1000)); then
    large=$repo
    break
  fi
done
[[ -n $large ]] || fail "no dev-set repository has over 1,000 findings"
(cd "$large" && "$binary" scan --no-git . --fail-on never --full -o "$work/d-full.md" 2>/dev/null) || true
python3 - "$work" <<'PY' || fail "the large repository's reports"
import json, os, sys
work = sys.argv[1]
report = json.load(open(os.path.join(work, "d.json")))
decision = report["assessment"]["decision"]
md = open(os.path.join(work, "d.md"), encoding="utf-8").read()
full = open(os.path.join(work, "d-full.md"), encoding="utf-8").read()
txt = open(os.path.join(work, "d.txt"), encoding="utf-8").read()
size = len(md.encode())
assert size < 60 * 1024, f"Markdown is {size} bytes without --full"
why = md[md.index("### Why"):md.index("### What would change")]
bullets = [line for line in why.split("<details>")[0].splitlines() if line.startswith("- ")]
assert len(bullets) <= 7 + 2 + 4, f"{len(bullets)} lines of why"
assert "<details><summary>All %d reasons</summary>" % len(decision["reasons"]) in md
# Every deciding factor is in exactly one group; the first group holds the
# strongest (first) factor.
members = sorted(m for g in decision["groups"] for m in g["members"])
assert members == list(range(len(decision["deciding"]))), "groups do not cover the deciding factors once"
assert 0 in decision["groups"][0]["members"], "the first group does not hold the strongest reason"
assert bullets[0] == "- " + decision["groups"][0]["summary"].replace("|", "\\|").replace("<", "&lt;"), bullets[0]
for reason in decision["reasons"]:
    assert reason.replace("|", "\\|").replace("<", "&lt;") in full, "--full Markdown lacks a reason"
assert "Findings by directory" in txt and len(txt.encode()) < 60 * 1024, "text summary"
print(f'{report["summary"]["findings"]} findings: Markdown {size} bytes ({len(full.encode())} with --full), '
      f'{len(decision["deciding"])} deciding factors in {len(decision["groups"])} groups')
PY
