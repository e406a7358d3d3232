# Sourced by the end-to-end tests that run git or read a repository, with the
# binary as its argument: BIN is that binary's full path, WORK a temporary
# folder removed at exit, and HOME a folder inside it, so that neither the
# user's nor the system's git configuration reaches the test.
BIN=$(realpath "$1")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
