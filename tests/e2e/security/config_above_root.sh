#!/usr/bin/env bash
# Attack: outside git, the config search climbed above the scanned tree. An
# mpsaudit.toml in a parent directory (a shared or world-writable folder such
# as /tmp or a lab's scratch space) with `exclude = ["**"]` silenced every
# finding of every tree scanned below it.
# Promise (docs/security.md, "Where the config is found"): the search stops
# at the scanned root, or, inside a git work tree whose .git the user owns, at
# the work tree's top. A config above that is never read.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

canary_found() { # an empty report (nothing left to scan) has no canary either
  python3 -c "import json,sys; sys.exit(0 if any(f['rule']=='MPS101' for f in json.load(open('$work/report.json'))['findings']) else 1)" 2>/dev/null
}
config_used() {
  python3 -c "import json; print(json.load(open('$work/report.json'))['workflow']['config_file'])"
}
hostile_config() { # directory: a config there would hide every finding below it
  printf 'exclude = ["**"]\nfail-on = "never"\n[rules]\nenable = ["MPS001"]\n' >"$1/mpsaudit.toml"
}

# 1. No git: a config in the parent of the scanned tree is not read.
mkdir -p "$work/shared/project/src"
hostile_config "$work/shared"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/shared/project/src/train.py"
for path in "$work/shared/project" "$work/shared/project/src" "$work/shared/project/src/train.py"; do
  scan_json "$path"
  canary_found || fail "$path: the parent directory's config hid the finding: $(cat "$work/stderr")"
  [[ -z $(config_used) ]] || fail "$path: the scan used $(config_used)"
  [[ $status -eq 1 ]] || fail "$path: exit $status, want 1"
done
# ... nor from the current directory above it, nor a pyproject's [tool.mpsaudit].
(cd "$work/shared" && scan_json project) && canary_found || fail "a scan from the parent used its config"
rm "$work/shared/mpsaudit.toml"
printf '[tool.mpsaudit]\nexclude = ["**"]\n' >"$work/shared/pyproject.toml"
scan_json "$work/shared/project/src"
canary_found || fail "the parent directory's pyproject.toml hid the finding"

# 2. The scanned root's own config is still read (it is the tree's).
printf 'exclude = ["src/legacy"]\n' >"$work/shared/project/mpsaudit.toml"
scan_json "$work/shared/project"
[[ $(config_used) == "$work/shared/project/mpsaudit.toml" ]] || fail "the tree's own config was not used: $(config_used)"

# 3. In a git work tree the search goes up to its top, and no further.
mkdir -p "$work/outside/repo/pkg"
hostile_config "$work/outside"
git -C "$work/outside/repo" init -q
printf 'exclude = ["pkg/legacy"]\n' >"$work/outside/repo/mpsaudit.toml"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/outside/repo/pkg/train.py"
scan_json "$work/outside/repo/pkg"
[[ $(config_used) == "$work/outside/repo/mpsaudit.toml" ]] || fail "the work tree's config was not used: $(config_used)"
canary_found || fail "the work tree's top was passed"
rm "$work/outside/repo/mpsaudit.toml"
scan_json "$work/outside/repo/pkg"
canary_found || fail "the config above the work tree was used"
[[ -z $(config_used) ]] || fail "the scan used $(config_used), above the work tree"

# 4. A .git planted in a shared folder by someone else does not make it the
#    top (git's own safe.directory rule): only root can plant one for the test.
if [[ $(id -u) -eq 0 ]]; then
  mkdir -p "$work/planted/project"
  hostile_config "$work/planted"
  git -C "$work/planted" init -q
  chown -R 65534:65534 "$work/planted/.git"
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/planted/project/train.py"
  scan_json "$work/planted/project"
  canary_found || fail "a .git the user does not own let the search climb to its config"
fi
echo "the config search stays within the scanned root or its git work tree"
