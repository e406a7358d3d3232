#!/usr/bin/env bash
# SARIF 2.1.0 output: Microsoft's validator (npm @microsoft/sarif-multitool,
# installed by scripts/node-tools) with the GitHub rules and with its default
# rules must report zero errors for every sample; and the properties GitHub
# code scanning relies on are checked directly (relative URIs resolved by
# originalUriBaseIds, fingerprints, suppressions).
set -euo pipefail
binary=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The npm wrapper passes arguments through a shell; call the native tool.
multitool=$(cd "$root/third_party/node" 2>/dev/null && node -e "console.log(require('@microsoft/sarif-multitool'))" 2>/dev/null || true)
[[ -x $multitool ]] || fail "sarif-multitool is missing: run scripts/node-tools"

# A tree with a suppressed finding, so that `suppressions` is exercised.
mkdir -p "$work/suppressed"
printf 'import torch\nx = torch.zeros(3).cuda()  # mpsaudit: ignore[MPS201] CI runs on CUDA\ny = x.cuda()\n' >"$work/suppressed/a.py"

targets=("$work/suppressed")
for sample_dir in "$root"/samples/*/; do targets+=("${sample_dir%/}"); done
for target in "${targets[@]}"; do
  name=$(basename "$target")
  # Exit 3 (some inputs could not be scanned) still writes the reports.
  status=0
  (cd "$target" && "$binary" scan --no-git . --fail-on never -o "$work/$name.sarif" -o "$work/$name.json" 2>/dev/null) ||
    status=$?
  [[ $status -eq 0 || $status -eq 3 ]] || fail "$name: scan exited $status"
  python3 - "$work/$name.sarif" "$work/$name.json" "$name" <<'PY' || fail "$name: SARIF content"
import json, sys
sarif_path, json_path, name = sys.argv[1:]
sarif, report = json.load(open(sarif_path)), json.load(open(json_path))
run = sarif["runs"][0]
assert sarif["version"] == "2.1.0"
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///")
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/")
rules = run["tool"]["driver"]["rules"]
ids = [r["id"] for r in rules]
assert ids == sorted(set(ids)), "rule IDs unique and ordered"
for rule in rules:
    assert rule["fullDescription"]["text"] and rule["help"]["markdown"] and rule["help"]["text"], rule["id"]
results = run["results"]
assert len(results) == len(report["findings"])
levels = {"error": "error", "warning": "warning", "info": "note"}
for result, finding in zip(results, report["findings"]):
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uriBaseId"] == "SRCROOT"
    assert not location["artifactLocation"]["uri"].startswith(("/", "file:")), "relative URIs"
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["rule"]
    assert result["level"] == levels[finding["severity"]]
    assert location["region"]["startLine"] == max(1, finding["line"])  # whole-file findings have line 0
    assert ":" in result["partialFingerprints"]["primaryLocationLineHash"]
    assert ("suppressions" in result) == finding["suppressed"]
fingerprints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
assert len(fingerprints) == len(set((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], f) for r, f in zip(results, fingerprints)))
if name == "suppressed":
    suppressed = [r for r in results if "suppressions" in r]
    assert len(suppressed) == 1 and suppressed[0]["suppressions"][0]["justification"] == "CI runs on CUDA", suppressed
PY
  echo "$name: SARIF content matches the JSON report"
done

# The validator takes every file in one run (its start is most of its cost);
# each error it reports names the file.
sarifs=()
for target in "${targets[@]}"; do sarifs+=("$work/$(basename "$target").sarif"); done
for kind in Gh default; do
  # --rule-kind takes a list: it must come before an option, or it eats the files.
  args=(validate)
  [[ $kind == Gh ]] && args+=(--rule-kind Gh)
  args+=(-o "$work/all.$kind.validation.sarif")
  (cd "$work" && timeout 600 "$multitool" "${args[@]}" "${sarifs[@]}" >"$work/all.$kind.log" 2>&1) ||
    { cat "$work/all.$kind.log" >&2; fail "the validator failed ($kind rules)"; }
  python3 - "$work/all.$kind.validation.sarif" "$work/all.$kind.log" "$kind" "${#sarifs[@]}" <<'PY' || { cat "$work/all.$kind.log" >&2; fail "validation errors ($kind rules)"; }
import json, sys
import re
path, log, kind, expected = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
run = json.load(open(path))["runs"][0]
scanned = re.search(r"Done\. (\d+) files? scanned", open(log).read())
assert scanned and int(scanned.group(1)) == expected, f"the validator read {scanned and scanned.group(1)} of {expected} files"
errors = [r for r in run.get("results", []) if r.get("level", "warning") == "error"]
for r in errors:
    where = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] if r.get("locations") else "?"
    print(where, r["ruleId"], r["message"].get("text") or r["message"].get("arguments"), file=sys.stderr)
assert not errors
print(f"{expected} SARIF files valid ({kind} rules)")
PY
done
