#!/usr/bin/env bash
# Preprocessor bombs in CUDA sources. A 1.5 KB .cu file with 36 macros, each
# expanding to two copies of the one before (A35 is 2^35 expansions), ran
# clang past 120 s and 4.4 GB and lost the whole scan; 109 bytes of nested
# calls of `#define B(x) x x` double clang's token buffer at every level
# without ever calling back; 12 KB of calls of `#define C(x) x` nested 3,000
# deep overflowed clang's stack and killed the scan. Each C/C++/CUDA file's
# clang parse now has a budget (macro expansions and their nesting, tokens,
# headers, time) and runs in a worker process capped in time and memory:
# past a bound, the file keeps the raw lexer's facts and gets an error
# naming the bound (exit 3), and every other file's findings stay.
# docs/security.md, "C++ sources".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"

tree=$work/repo && mkdir -p "$tree"
{
  echo '__global__ void doubled(float *x) { x[0] = 1.0f; }'
  echo '#define A0 ;'
  for level in $(seq 1 35); do echo "#define A$level A$((level - 1)) A$((level - 1))"; done
  echo 'A35'
} >"$tree/doubling.cu"
nested_calls() { # kernel, its value, macro definition, depth: the kernel, then the macro called nested that deep
  local macro=${3%%(*}
  echo "__global__ void $1(float *x) { x[0] = $2; }"
  echo "#define $3"
  for _ in $(seq 1 "$4"); do printf '%s(' "$macro"; done
  printf ';'
  printf ')%.0s' $(seq 1 "$4")
  echo
}
nested_calls copied 2.0f 'B(x) x x' 30 >"$tree/arguments.cu"
nested_calls nested 3.0f 'C(x) x' 3000 >"$tree/nesting.cu"
cxx_controls

# Under AddressSanitizer (scripts/sanitize, where bomb_scan scales the
# bounds) a refused allocation is the sanitizer's own error (the file falls
# back as a crash, not as past --max-parse-memory).
bomb_scan "canary.py kernel.cu doubling.cu arguments.cu nesting.cu" --max-parse-memory 256 <<'PY'
diagnostics = {(d["path"], d["code"]): d for d in report["diagnostics"]}
doubling = diagnostics.get(("doubling.cu", "parse-limit"))
if not doubling or doubling["level"] != "error" or "macro expansions" not in doubling["message"]:
    sys.exit(f"FAIL: no parse-limit error naming macro expansions for doubling.cu: {report['diagnostics']}")
arguments = diagnostics.get(("arguments.cu", "parse-limit"))
if scale == 1 and (not arguments or "--max-parse-memory" not in arguments["message"]):
    sys.exit(f"FAIL: no parse-limit error naming --max-parse-memory for arguments.cu: {report['diagnostics']}")
if scale > 1 and not any(path == "arguments.cu" for path, _ in diagnostics):
    sys.exit(f"FAIL: no diagnostic for arguments.cu: {report['diagnostics']}")
# Under AddressSanitizer the nesting's own allocations outgrow the 256 MiB
# cap of this run before the nesting bound is reached (alone, without the
# cap, the sanitized build names the nesting too): the worker ends as a crash.
nesting = diagnostics.get(("nesting.cu", "parse-limit"))
if scale == 1 and (not nesting or "nested more than" not in nesting["message"]):
    sys.exit(f"FAIL: no parse-limit error naming the nesting for nesting.cu: {report['diagnostics']}")
if scale > 1 and not any(path == "nesting.cu" for path, _ in diagnostics):
    sys.exit(f"FAIL: no diagnostic for nesting.cu: {report['diagnostics']}")
modes = {f["path"]: f["mode"] for f in report["files"]}
if any(modes.get(bomb) != "lexical" for bomb in ("doubling.cu", "arguments.cu", "nesting.cu")):
    sys.exit(f"FAIL: the bombs did not fall back to the raw lexer: {modes}")
PY
echo "ok: macro bombs stop at their bound; the kernel and the canary are reported"
