# Setup shared by the fix end-to-end tests; sourced (not run: CTest registers
# *.sh only) as `source fix_common.bash "$@"` after `set -u`.
# MPSAUDIT and ROOT come from the arguments (binary, repository root); WORK
# is a scratch directory removed on exit; fixes read the repository's rules;
# fail() records a failure in `status` and the test goes on to the next check.
MPSAUDIT=$(realpath "$1")
ROOT=$(realpath "$2")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export MPSAUDIT_RULES_DIR="$ROOT/rules"
status=0
fail() {
  echo "FAIL $1"
  status=1
}
