# Sourced by the end-to-end tests that run git or read a repository, with the
# binary as its argument: BIN is that binary's full path, WORK a temporary
# folder removed at exit, and HOME a folder inside it, so that neither the
# user's nor the system's git configuration reaches the test.
BIN=$(realpath "$1")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"

# work_repo: a new repository at $WORK/repo (any earlier one there removed),
# made the current directory, with a committer's name and address set.
work_repo() {
  rm -rf "$WORK/repo"
  git init -q -b main "$WORK/repo"
  cd "$WORK/repo" || exit 1
  git config user.email lab@example.org
  git config user.name "A Lab"
}
