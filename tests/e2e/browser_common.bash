# Setup shared by the tests that drive headless Chromium; sourced (not run:
# CTest registers *.sh only) as `source browser_common.bash NAME` after
# `binary`, `work` and fail() are set (common.bash sets them). Sets `browser`
# (fails when Chromium is missing) and `shots`, <build>/test-output/NAME
# (MPSAUDIT_TEST_OUTPUT overrides the parent), created if need be; its files
# are kept as CI artifacts. Defines render_page.
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || fail "chromium is missing (scripts/setup --test installs it)"
shots=${MPSAUDIT_TEST_OUTPUT:-$(dirname "$binary")/test-output}/$1
mkdir -p "$shots"

# render_page HTML WIDTH PNG [DOM]: one Chromium start lays out the file HTML
# in a WIDTHx2400 window, writes its screenshot to PNG and, when DOM is
# given, the DOM after its scripts ran to DOM. Chromium spends most of a
# start waiting, so callers may run several at once: each gets a profile of
# its own, and no background connection is tried (the network is closed).
render_page() {
  local html=$1 width=$2 png=$3 dom=${4:-} profile
  profile=$(mktemp -d "$work/chromium-profile.XXXXXX")
  local args=(--headless --no-sandbox --disable-gpu --no-first-run --disable-quic --disable-background-networking
    --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars
    --window-size="$width,2400" --screenshot="$png")
  if [[ -n $dom ]]; then
    timeout 300 "$browser" "${args[@]}" --dump-dom "file://$html" >"$dom" 2>/dev/null || return 1
  else
    timeout 300 "$browser" "${args[@]}" "file://$html" >/dev/null 2>&1 || return 1
  fi
  rm -rf "$profile"
  [[ -s $png ]]
}
