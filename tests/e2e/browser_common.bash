# Setup shared by the tests that drive headless Chromium; sourced (not run:
# CTest registers *.sh only) as `source browser_common.bash NAME` after
# `binary` and fail() are set. Sets `browser` (fails when Chromium is
# missing) and `shots`, <build>/test-output/NAME (MPSAUDIT_TEST_OUTPUT
# overrides the parent), created if need be; its files are kept as CI artifacts.
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || fail "chromium is missing (scripts/setup --test installs it)"
shots=${MPSAUDIT_TEST_OUTPUT:-$(dirname "$binary")/test-output}/$1
mkdir -p "$shots"
