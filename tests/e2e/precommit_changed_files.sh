#!/usr/bin/env bash
# The command-line side of the everyday workflow, in a real git repository:
# --staged and --changed-since (partial scans, labelled), the baseline
# written and used by `scan`, config discovery from a sub-folder, unknown
# config keys, `config --show`, and --format github paths.
# Usage: precommit_changed_files.sh <mpsaudit binary> <repository root>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/git_sandbox.bash" "$1"
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*"; exit 1; }
# run <expected exit code> <args...>: output in $WORK/out, errors in $WORK/err.
run() {
  local expected=$1
  shift
  local code=0
  "$BIN" "$@" > "$WORK/out" 2> "$WORK/err" || code=$?
  [ "$code" = "$expected" ] || { cat "$WORK/out" "$WORK/err"; fail "mpsaudit $* exited $code, expected $expected"; }
}

git init -q -b main "$WORK/repo"
cd "$WORK/repo"
git config user.email lab@example.org
git config user.name "A Lab"
mkdir -p src/legacy tests
printf 'import torch\nm = torch.nn.Linear(2, 2).cuda()\n' > src/model.py
printf 'import torch\nx = torch.zeros(1).cuda()\n' > src/legacy/old.py
printf 'import torch\nt = torch.zeros(1).cuda()\n' > tests/test_model.py
cat > mpsaudit.toml <<'TOML'
exclude = ["legacy"]
[per-path-ignores]
"tests/**" = ["device"]
TOML
git add -A
git commit -q -m start

# Config found from a sub-folder; globs relative to the config file.
run 1 scan src --format json
grep -q '"src/model.py"\|"model.py"' "$WORK/out" || fail "src/model.py not scanned"
grep -q 'old.py' "$WORK/out" && fail "exclude = [\"legacy\"] did not apply to a scan of src/"
run 1 scan . --format json
grep -q '"tests/test_model.py"' "$WORK/out" || fail "tests/test_model.py not scanned"
python3 - "$WORK/out" <<'PY' || fail "per-path-ignores kept a device finding in tests/"
import json, sys
report = json.load(open(sys.argv[1]))
bad = [f for f in report["findings"] if f["path"].startswith("tests/") and f["rule"].startswith("MPS2")]
sys.exit(1 if bad else 0)
PY
grep -q "dropped by per-path-ignores" "$WORK/err" || fail "per-path-ignores are not counted"

# Unknown keys: exit 2, naming the key and the line.
printf 'exclude = []\nincluded = ["src"]\n' > "$WORK/bad.toml"
run 2 scan . --config "$WORK/bad.toml"
grep -q "bad.toml:2: unknown key \`included\`" "$WORK/err" || { cat "$WORK/err"; fail "unknown key not named with its line"; }

# config --show names sources.
run 0 config --show src
grep -q 'exclude = \["legacy"\].*mpsaudit.toml:1' "$WORK/out" || { cat "$WORK/out"; fail "config --show lacks the source of exclude"; }
python3 -c 'import sys, tomllib; tomllib.loads(open(sys.argv[1]).read())' "$WORK/out" ||
  { cat "$WORK/out"; fail "config --show does not print valid TOML"; }

# Baseline: today's findings are known; a new one is reported.
run 0 baseline write .mpsaudit-baseline .
grep -q $'MPS201\tsrc/model.py\t' .mpsaudit-baseline || fail "baseline lacks src/model.py"
run 0 scan . --baseline .mpsaudit-baseline
grep -q "1 known finding" "$WORK/err" || { cat "$WORK/err"; fail "the known finding is not counted"; }
printf 'import torch\nm = torch.nn.Linear(2, 2).cuda()\ny = torch.zeros(1).cuda()\n' > src/model.py
run 1 scan . --baseline .mpsaudit-baseline
grep -q "src/model.py:3" "$WORK/out" || fail "the new finding is not reported"
grep -q "src/model.py:2" "$WORK/out" && fail "the baseline finding is reported"

# --staged: only staged files, and the report says it is partial.
git checkout -q -- src/model.py
printf 'import torch\ntorch.cuda.synchronize()\n' > src/new.py
printf 'import torch\ntorch.cuda.empty_cache()\n' > src/unstaged.py
git add src/new.py
run 1 scan . --staged
grep -q "src/new.py" "$WORK/out" || fail "--staged missed the staged file"
grep -q "unstaged.py\|src/model.py" "$WORK/out" && fail "--staged scanned files that are not staged"
grep -q "partial scan: staged files only" "$WORK/err" || { cat "$WORK/err"; fail "--staged is not labelled a partial scan"; }
# A partial scan prints findings only: no repository verdict, entry points
# or effort, which a few files cannot support; how to suppress, once.
grep -q "^Decision:\|^Effort:\|^Entry points" "$WORK/out" && { cat "$WORK/out"; fail "a partial scan prints a verdict"; }
grep -q "Decision:" "$WORK/err" && { cat "$WORK/err"; fail "a partial scan prints a verdict on standard error"; }
[[ $(grep -c "To suppress a finding, end its line with \`# mpsaudit: ignore\[MPS101\] <reason>\`" "$WORK/out") -eq 1 ]] ||
  { cat "$WORK/out"; fail "the suppression hint is not printed once"; }
# The JSON report keeps the assessment, labelled partial.
"$BIN" scan . --staged --format json >"$WORK/partial.json" 2>/dev/null || true
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "partial scan" in d["assessment"]["decision"]["headline"], d["assessment"]["decision"]["headline"]' "$WORK/partial.json" ||
  fail "the JSON decision is not labelled partial"
# A full scan names the verdict in its GitHub summary notice; a partial one does not.
run 1 scan . --format github
grep -q "^::notice title=mpsaudit::.*Decision: [A-Z_]*, " "$WORK/out" || { cat "$WORK/out"; fail "the github notice lacks the verdict"; }
run 1 scan . --staged --format github
grep -q "Decision:" "$WORK/out" && { cat "$WORK/out"; fail "a partial github notice carries a verdict"; }
# No finding, no hint.
printf 'import torch\nx = torch.ones(2)\n' > src/clean.py
run 0 scan src/clean.py
grep -q "To suppress" "$WORK/out" && { cat "$WORK/out"; fail "the suppression hint without a finding"; }
rm src/clean.py

# --changed-since: committed, staged, unstaged and untracked changes since REV.
run 1 scan . --changed-since HEAD
grep -q "src/new.py" "$WORK/out" && grep -q "src/unstaged.py" "$WORK/out" || fail "--changed-since missed changes"
grep -q "src/model.py" "$WORK/out" && fail "--changed-since scanned an unchanged file"
grep -q "partial scan: files changed since HEAD" "$WORK/err" || fail "--changed-since is not labelled"
run 2 scan . --changed-since no-such-revision
grep -q "no-such-revision" "$WORK/err" || fail "a bad revision is not reported"

# Files named on the command line (as pre-commit passes them) keep their paths.
run 1 scan src/new.py src/model.py --baseline .mpsaudit-baseline
grep -q "src/new.py:2" "$WORK/out" || { cat "$WORK/out"; fail "named files lost their repository paths"; }
grep -q "src/model.py:2" "$WORK/out" && fail "the baseline did not apply to named files"

# --format github from a sub-folder: paths relative to the repository root.
run 1 scan src --format github --no-config
grep -q "^::warning file=src/model.py,line=2" "$WORK/out" || { cat "$WORK/out"; fail "github annotation paths are not repository-relative"; }
echo "PASS: changed files, baseline, config from the command line"
