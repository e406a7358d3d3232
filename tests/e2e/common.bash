# Setup shared by end-to-end tests; sourced (not run: CTest registers *.sh
# only) as `source common.bash BINARY` after `set -euo pipefail`. Sets
# `binary`, the full path of the mpsaudit binary under test (full, so that a
# test may change directory); `work`, a scratch folder removed at exit; and
# fail(), which ends the test with its message on standard error.
# shellcheck disable=SC2034 # binary is for the tests that source this file
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
