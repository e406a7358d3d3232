#!/usr/bin/env bash
# `mpsaudit fix --apply --unsafe` on a copy of every sample repository:
#   - every changed Python file still compiles (python3 -m py_compile);
#   - a scan afterwards shows the fixed findings gone and nothing new: no
#     (file, rule) pair appears that was not there before, and the findings
#     still open drop by exactly the number fixed (what remains of a fixed
#     finding is guarded or a reviewed suppression, as the fix intends);
#   - the effort model's fix credit in the report before (what fix removes)
#     covers what happened: no more findings that cost work (warnings and
#     errors; fix also edits info findings, which cost nothing) went away
#     than it credited, and the estimate fell by no more than the credited
#     hours;
#   - running fix again changes nothing (empty diff, exit 0).
# Usage: fix_apply_roundtrip.sh MPSAUDIT REPO_ROOT
set -u
source "$(dirname "${BASH_SOURCE[0]}")/fix_common.bash" "$@"

for sample_dir in "$ROOT"/samples/*/; do
  sample=$(basename "$sample_dir")
  copy="$WORK/$sample"
  cp -r "$sample_dir" "$copy"
  cp -r "$sample_dir" "$WORK/$sample.orig"
  (cd "$copy" && "$MPSAUDIT" scan . --no-config --format json --fail-on never >"$WORK/$sample.before.json" 2>/dev/null)
  (cd "$copy" && "$MPSAUDIT" fix . --no-config --apply --unsafe >"$WORK/$sample.out" 2>"$WORK/$sample.err")
  rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "$sample: fix --apply exited $rc: $(cat "$WORK/$sample.err")"
  [ -s "$WORK/$sample.out" ] && fail "$sample: fix --apply printed a diff"
  fixed=$(sed -n 's/^Fixed \([0-9]*\) finding.*/\1/p' "$WORK/$sample.err")
  [ -n "$fixed" ] || fail "$sample: no summary line: $(cat "$WORK/$sample.err")"

  # Changed Python files still compile.
  while IFS= read -r changed; do
    case "$changed" in
    *.py)
      python3 -m py_compile "$copy/$changed" 2>"$WORK/compile.err" ||
        fail "$sample: $changed does not compile after fix: $(cat "$WORK/compile.err")"
      ;;
    esac
  done < <(cd "$WORK/$sample.orig" && find . -type f | sed 's|^\./||' | while read -r f; do
    cmp -s "$f" "$copy/$f" || echo "$f"
  done)
  find "$WORK" -name '__pycache__' -prune -exec rm -rf {} + 2>/dev/null

  (cd "$copy" && "$MPSAUDIT" scan . --no-config --format json --fail-on never >"$WORK/$sample.after.json" 2>/dev/null)
  changed_files=$(cd "$WORK/$sample.orig" && find . -type f | sed 's|^\./||' | while read -r f; do
    cmp -s "$f" "$copy/$f" || echo "$f"
  done)
  python3 - "$WORK/$sample.before.json" "$WORK/$sample.after.json" "${fixed:-0}" "$sample" "$changed_files" <<'PY' || status=1
import collections, json, sys
before_report = json.load(open(sys.argv[1]))
after_report = json.load(open(sys.argv[2]))
before, after = before_report["findings"], after_report["findings"]
fixed, sample = int(sys.argv[3]), sys.argv[4]
def open_findings(findings):
    return collections.Counter((f["path"], f["rule"]) for f in findings
                               if f["guard"] == "none" and not f.get("suppressed"))
def pairs(findings):
    return {(f["path"], f["rule"]) for f in findings}
problems = []
new_pairs = pairs(after) - pairs(before)
if new_pairs:
    problems.append("new findings after fix: %s" % sorted(new_pairs))
grown = {k: v for k, v in (open_findings(after) - open_findings(before)).items()}
if grown:
    problems.append("open findings grew: %s" % grown)
removed = sum(open_findings(before).values()) - sum(open_findings(after).values())
# A CUDA-only selection fixed where the device is chosen also clears the
# MPS203 on the flag that fed it (`use_cuda = torch.cuda.is_available()`):
# one edit, two findings, in a file fix changed.
changed = set(sys.argv[5].split()) if len(sys.argv) > 5 else set()
companions = sum((open_findings(before) - open_findings(after))[key]
                 for key in open_findings(before) if key[1] == "MPS203" and key[0] in changed)
if not fixed <= removed <= fixed + companions:
    problems.append("fix reported %d fixed findings but %d open findings went away" % (fixed, removed))
credit = before_report["assessment"]["effort"]["fix"]
credited = credit["safe_findings"] + credit["unsafe_findings"]
def costly(findings):
    return sum(1 for f in findings if f["guard"] == "none" and not f.get("suppressed") and f["severity"] != "info")
costly_removed = costly(before) - costly(after)
if costly_removed > credited:
    problems.append("fix removed %d findings that cost work, the report credited only %d" % (costly_removed, credited))
if costly_removed > 0 and credited == 0:
    problems.append("fix removed findings the report gave no credit for")
# The port's items, without the one-offs (acceptance on the Mac, making the
# build optional): those follow whether any work is left, not one finding.
def items_high(report):
    effort = report["assessment"]["effort"]
    one_offs = sum(c["hours"]["high"] for c in effort.get("by_category", []) if c["name"] == "one-off")
    return effort["total"]["high"] - one_offs
total_before = items_high(before_report)
total_after = items_high(after_report)
if total_after > total_before + 0.01:
    problems.append("the estimate grew after fix: %.2f -> %.2f h" % (total_before, total_after))
if total_after < total_before - credit["with_unsafe_hours"]["high"] - 0.01:
    problems.append("the estimate fell by %.2f h, more than the %.2f h credited"
                    % (total_before - total_after, credit["with_unsafe_hours"]["high"]))
for p in problems:
    print("FAIL %s: %s" % (sample, p))
if not problems:
    print("ok %s: %d findings fixed, %d still open" % (sample, fixed, sum(open_findings(after).values())))
sys.exit(1 if problems else 0)
PY

  # Idempotent: a second run has nothing to do.
  (cd "$copy" && "$MPSAUDIT" fix . --no-config --unsafe >"$WORK/$sample.again" 2>"$WORK/$sample.again.err")
  rc=$?
  if [ -s "$WORK/$sample.again" ]; then
    fail "$sample: fix is not idempotent; a second run prints:"
    cat "$WORK/$sample.again"
  fi
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "$sample: second fix exited $rc"
done
exit $status
