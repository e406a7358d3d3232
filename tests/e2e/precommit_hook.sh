#!/usr/bin/env bash
# The pre-commit hook, end to end, with Debian's real `pre-commit`:
#   - a commit adding `x.cuda()` is refused and the finding is shown;
#   - a commit adding a suppressed one, or touching only unrelated files, passes;
#   - a repository whose old findings are in the baseline accepts commits that
#     move that code, and refuses a new copy of it.
# The hook runs as `repo: local` with the hook definition of
# .pre-commit-hooks.yaml (entry, args, language: system) and `mpsaudit` on
# PATH, so no network is needed.
# Usage: precommit_hook.sh <mpsaudit binary> <repository root>
set -euo pipefail
ROOT=$(realpath "$2")
command -v pre-commit >/dev/null || { echo "FAIL: pre-commit is not installed (apt-get install pre-commit)"; exit 1; }
pre-commit validate-manifest "$ROOT/.pre-commit-hooks.yaml"

source "$(dirname "${BASH_SOURCE[0]}")/git_sandbox.bash" "$1"
export PRE_COMMIT_HOME="$WORK/pre-commit-cache"
mkdir -p "$WORK/bin"
ln -s "$BIN" "$WORK/bin/mpsaudit" # as if installed: found on PATH by name
export PATH="$WORK/bin:$PATH"
unset MPSAUDIT_RULES_DIR

fail() { echo "FAIL: $*"; exit 1; }

# The hook, as .pre-commit-hooks.yaml defines it, declared locally.
hook_entry=$(sed -n 's/^  entry: //p' "$ROOT/.pre-commit-hooks.yaml")
hook_args=$(sed -n 's/^  args: //p' "$ROOT/.pre-commit-hooks.yaml")
[ -n "$hook_entry" ] && [ -n "$hook_args" ] || fail "cannot read entry/args from .pre-commit-hooks.yaml"

new_repo() {
  work_repo
  git config commit.gpgsign false
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: local
    hooks:
      - id: mpsaudit
        name: mpsaudit
        entry: $hook_entry
        args: $hook_args
        language: system
        types: [text]
        pass_filenames: true
        require_serial: true
YAML
  printf '# A lab repository\n' > README.md
  git add .pre-commit-config.yaml README.md
  git commit -q --no-verify -m "start"
  pre-commit install >/dev/null
}

# commit_expect <pass|fail> <message>: commits what is staged, checks the outcome.
commit_expect() {
  local expected=$1 message=$2
  if git commit -m "$message" > "$WORK/out.txt" 2>&1; then
    [ "$expected" = pass ] || { cat "$WORK/out.txt"; fail "commit '$message' should have been refused"; }
  else
    [ "$expected" = fail ] || { cat "$WORK/out.txt"; fail "commit '$message' should have passed"; }
  fi
}

# 1. New CUDA-only code is refused, and the finding is shown.
new_repo
printf 'import torch\nx = torch.zeros(3)\nx = x.cuda()\n' > train.py
git add train.py
commit_expect fail "add train.py"
grep -q "MPS201" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "the refused commit does not show MPS201"; }
grep -q "train.py:3" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "the finding's location is not shown"; }
git rev-parse -q --verify HEAD~1 >/dev/null && fail "the refused commit was recorded"

# 2. A suppressed one passes; so does a commit of unrelated files.
printf 'import torch\nx = torch.zeros(3)\nx = x.cuda()  # mpsaudit: ignore[MPS201] runs on the cluster only\n' > train.py
git add train.py
commit_expect pass "add train.py, suppressed"
printf 'notes\n' > NOTES.txt
printf 'def helper():\n    return 1\n' > util.py
git add NOTES.txt util.py
commit_expect pass "unrelated files"
# A finding below the chosen severity passes too (guarded code is info).
printf 'import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n' > guarded.py
git add guarded.py
commit_expect pass "guarded code is info, below --fail-on warning"

# 3. Old findings in the baseline do not block; new ones still do.
new_repo
printf 'import torch\nmodel = torch.nn.Linear(2, 2)\nmodel = model.cuda()\ntorch.cuda.synchronize()\n' > old.py
git add old.py
git commit -q --no-verify -m "legacy code, before mpsaudit"
mpsaudit baseline write .mpsaudit-baseline . 2>/dev/null
grep -q "MPS201" .mpsaudit-baseline || fail "the baseline did not record MPS201"
printf 'baseline = ".mpsaudit-baseline"\n' > mpsaudit.toml
git add .mpsaudit-baseline mpsaudit.toml
commit_expect pass "adopt mpsaudit with a baseline"
# The legacy lines move (a new line above them): still known.
printf 'import torch\n# the model\nmodel = torch.nn.Linear(2, 2)\n\nmodel = model.cuda()\ntorch.cuda.synchronize()\n' > old.py
git add old.py
commit_expect pass "edit old.py around its known findings"
# A second copy of a known line is new.
printf 'import torch\n# the model\nmodel = torch.nn.Linear(2, 2)\n\nmodel = model.cuda()\ntorch.cuda.synchronize()\nmodel = model.cuda()\n' > old.py
git add old.py
commit_expect fail "a second copy of a known line"
grep -q "old.py:7" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "the new copy (line 7) is not the one reported"; }
echo "PASS: pre-commit hook"
