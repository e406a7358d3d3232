#!/usr/bin/env bash
# Terminal escape injection: ESC sequences, BEL and the bidi override U+202E
# ("Trojan Source") in file names, code, a pickle's GLOBAL names, requirement
# options, a config key, an imported environment record and a fix diff never
# reach standard output or standard error raw: scan (text, md, github), fix,
# env --import and config errors show them as visible escapes (\x1b, \u202e).
# fix --apply still writes the file's real bytes.
set -euo pipefail
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

esc=$'\e[31m' bel=$'\a' rlo=$'\u202e' title=$'\e]0;pwned\a'
tree="$work/tree"
mkdir -p "$tree"
evil_name="evil${esc}${rlo}${bel}.py"
printf 'import torch\ntorch.cuda.synchronize()  # %s%s%s gone\n' "$title" "$rlo" "$esc" >"$tree/$evil_name"
printf 'numpy\n--%shidden option\n' "$esc" >"$tree/requirements.txt"
python3 - "$tree/model.pt" <<'PY'
import sys, zipfile
pickle = b"\x80\x02c" + b"os.\x1b[31mpath\n" + b"sys\x07tem\xe2\x80\xae\n" + b"q\x00."
with zipfile.ZipFile(sys.argv[1], "w") as archive:
    archive.writestr("archive/data.pkl", pickle)
    archive.writestr("archive/version", "3\n")
PY

no_raw_controls() { # label, files...: no ESC, BEL or U+202E bytes
  local label=$1; shift
  python3 - "$label" "$@" <<'PY' || exit 1
import sys
label, paths = sys.argv[1], sys.argv[2:]
for path in paths:
    data = open(path, "rb").read()
    for name, needle in (("ESC", b"\x1b"), ("BEL", b"\x07"), ("U+202E", "\u202e".encode())):
        if needle in data:
            at = data.index(needle)
            print(f"FAIL: {label}: raw {name} in {path}: {data[max(0, at - 40):at + 40]!r}", file=sys.stderr)
            sys.exit(1)
PY
}
shows() { # label, file, text that must appear (the visible escape)
  grep -qF -- "$3" "$2" || fail "$1: '$3' not shown in $2: $(head -c 600 "$2")"
}

for format in text md github; do
  status=0
  timeout 60 "$binary" scan --no-git --format "$format" "$tree" >"$work/out.$format" 2>"$work/err.$format" ||
    status=$?
  [[ $status -le 3 ]] || fail "scan --format $format exited $status"
  no_raw_controls "scan --format $format" "$work/out.$format" "$work/err.$format"
  shows "scan --format $format" "$work/out.$format" 'evil\x1b[31m\u202e\x07.py'
done
shows "text snippet" "$work/out.text" '\x1b]0;pwned\x07\u202e\x1b[31m gone'
shows "pickle GLOBAL" "$work/out.text" 'os.\x1b[31mpath.sys\x07tem\u202e'
shows "requirements diagnostic" "$work/out.text" "unknown requirements-file option '--\\x1b[31mhidden'"
shows "github annotation" "$work/out.github" 'os.\x1b[31mpath.sys\x07tem\u202e'

# Coloured text: mpsaudit's own colours only.
timeout 60 "$binary" scan --no-git --color always "$tree" >"$work/out.colour" 2>&1 || true
python3 - "$work/out.colour" <<'PY' || fail "a raw escape from the tree in coloured output"
import re, sys
data = open(sys.argv[1], "rb").read()
rest = re.sub(rb"\x1b\[[0-9;]*m", b"", data)  # the palette's SGR codes
assert b"\x1b" not in rest and b"\x07" not in rest and "\u202e".encode() not in rest
assert b"\x1b[31m\\u202e" not in data and b"\x1b]0;" not in data
PY

# fix: the diff (headers and body) is shown escaped; --apply writes real bytes.
status=0
timeout 60 "$binary" fix --no-git "$tree" >"$work/fix.out" 2>"$work/fix.err" || status=$?
[[ $status -le 1 ]] || fail "fix exited $status: $(cat "$work/fix.err")"
no_raw_controls "fix diff" "$work/fix.out" "$work/fix.err"
shows "fix diff header" "$work/fix.out" '+++ b/evil\x1b[31m\u202e\x07.py'
shows "fix diff body" "$work/fix.out" '\x1b]0;pwned\x07\u202e\x1b[31m gone'
timeout 60 "$binary" fix --apply --no-git "$tree" >"$work/apply.out" 2>"$work/apply.err" || true
no_raw_controls "fix --apply" "$work/apply.out" "$work/apply.err"
grep -qF -- "$title$rlo$esc gone" "$tree/$evil_name" || fail "fix --apply did not keep the file's own bytes"
grep -q 'torch.backends.mps' "$tree/$evil_name" || fail "fix --apply did not fix the file"

# A config key: a config error printed on standard error.
mkdir -p "$work/config"
printf '"\\u001b[31mkey\\u202e" = 1\n' >"$work/config/mpsaudit.toml"
status=0
timeout 60 "$binary" scan --no-git "$work/config" >"$work/config.out" 2>"$work/config.err" || status=$?
[[ $status -eq 2 ]] || fail "a config with an unknown key exits $status, want 2"
no_raw_controls "config error" "$work/config.out" "$work/config.err"
shows "config error" "$work/config.err" '\x1b[31mkey\u202e'

# An imported environment record, shown by env and by scan --env.
python3 - "$work/record.json" <<'PY'
import json, sys
esc, bel, rlo = "\x1b[31m", "\x07", "\u202e"
record = {"python": {"executable": "/usr/bin/py" + esc + "thon" + bel, "version": "3.11" + rlo},
          "platform": {"system": "Darwin" + esc, "machine": "arm64", "chip": "M1" + rlo},
          "torch": {"importable": True, "version": "2.3" + esc},
          "variables": {"PYTORCH_ENABLE_MPS_FALLBACK": "1" + esc + "[2J"},
          "packages": {"numpy" + esc: "1.0"}}
json.dump(record, open(sys.argv[1], "w"))
PY
timeout 60 "$binary" env --import "$work/record.json" -o "$work/env.json" >"$work/env.out" 2>"$work/env.err" || true
no_raw_controls "env --import" "$work/env.out" "$work/env.err"
shows "env --import" "$work/env.out" '/usr/bin/py\x1b[31mthon\x07'
timeout 60 "$binary" scan --no-git --env "$work/env.json" "$tree" >"$work/scan-env.out" 2>"$work/scan-env.err" || true
no_raw_controls "scan --env" "$work/scan-env.out" "$work/scan-env.err"
shows "scan --env" "$work/scan-env.err" 'PYTORCH_ENABLE_MPS_FALLBACK=1\x1b[31m[2J'
echo "no control sequence from the tree reached the terminal"
