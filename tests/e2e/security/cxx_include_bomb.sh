#!/usr/bin/env bash
# An include bomb in a CUDA tree: 41 headers without include guards, each
# including the next twice, make clang enter 2^41 files; the scan never
# finished. Each C/C++/CUDA file's clang parse now has a budget of header
# entries (every #include counts, a header entered twice twice), bytes and
# nesting depth, and a deadline (--max-parse-time): past a bound, the file
# keeps the raw lexer's facts and gets an error naming the bound (exit 3),
# and every other file's findings stay. The gate before clang reads each
# header once. docs/security.md, "C++ sources".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

tree=$work/repo && mkdir -p "$tree/include"
for level in $(seq 0 39); do
  printf '#include "h%d.h"\n#include "h%d.h"\n' $((level + 1)) $((level + 1)) >"$tree/include/h$level.h"
done
printf '/* the last one */\n' >"$tree/include/h40.h"
printf '#include "include/h0.h"\n__global__ void bombed(float *x) { x[0] = 1.0f; }\n' >"$tree/bomb.cu"
cxx_controls

bomb_scan "canary.py kernel.cu bomb.cu" <<'PY'
bomb = [d for d in report["diagnostics"] if d["path"] == "bomb.cu" and d["code"] == "parse-limit"]
if not bomb or bomb[0]["level"] != "error" or "headers entered" not in bomb[0]["message"]:
    sys.exit(f"FAIL: no parse-limit error naming the headers entered for bomb.cu: {report['diagnostics']}")
modes = {f["path"]: f["mode"] for f in report["files"]}
if modes.get("bomb.cu") != "lexical":
    sys.exit(f"FAIL: bomb.cu did not fall back to the raw lexer: {modes.get('bomb.cu')}")
PY
echo "ok: an include bomb stops at the bound on headers entered; the kernel and the canary are reported"
