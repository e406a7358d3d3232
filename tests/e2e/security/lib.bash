# Setup and steps shared by the security tests; sourced (not run: CTest
# registers *.sh only) as `source lib.bash BINARY` after `set -euo pipefail`.
# Sets what ../common.bash sets (`binary`, `work`, fail()) and
# `security_dir`, this folder; the functions below are steps that several
# attacks' tests repeat.
source "$(dirname "${BASH_SOURCE[0]}")/../common.bash" "$1"
security_dir=$(realpath "$(dirname "${BASH_SOURCE[0]}")")

# scan_json PATH [OPTION...]: a JSON scan of PATH without git or cache: the
# report in $work/report.json, standard error in $work/stderr, the exit status
# in $status for the test to check; fails if it takes over 60 s.
scan_json() {
  local path=$1
  shift
  status=0
  timeout 60 "$binary" scan --no-git --no-cache --format json "$@" "$path" >"$work/report.json" 2>"$work/stderr" ||
    status=$?
  [[ $status -ne 124 ]] || fail "$path: the scan did not finish within 60 s"
}

# Checkpoints and pickles (pickle_*.sh).
# pickle_tree KIND: $work/tree holding pickle_payloads.py's KIND payloads, and
# `marker`, the file that a payload, were it ever run, would create. What
# pickle_payloads.py prints goes to standard output.
pickle_tree() {
  marker=$work/marker-a-payload-ran
  mkdir "$work/tree"
  python3 "$security_dir/pickle_payloads.py" "$1" "$work/tree" "$marker"
}
no_payload_ran() {
  [[ ! -e $marker ]] || fail "a payload ran during the scan"
}
# scan_pickles STATUS [WHY]: a JSON scan of $work/tree into $work/report.json,
# standard error in $work/stderr; fails unless it exits STATUS (which means
# WHY) and no payload ran.
scan_pickles() {
  local status=0
  "$binary" scan --no-git --format json "$work/tree" >"$work/report.json" 2>"$work/stderr" || status=$?
  [[ $status -eq $1 ]] || fail "the scan exited $status, not $1${2:+ ($2)}: $(cat "$work/stderr")"
  no_payload_ran
}

# C/C++/CUDA bombs (cxx_*_bomb.sh).
# cxx_controls: a kernel and a Python file in $tree whose findings a bomb
# beside them must not lose.
cxx_controls() {
  printf '__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }\nvoid run(float *x) { scale<<<1, 32>>>(x); }\n' \
    >"$tree/kernel.cu"
  printf 'import torch\ntorch.cuda.synchronize()\n' >"$tree/canary.py"
}
# bomb_scan FILES [OPTION...]: scans $tree with these options within the
# bounds of bounded_scan.py (60 s, a peak RSS of 512 MiB, exit 3); then runs
# the test's checks, Python on standard input that reads `report` (the JSON
# report) and `scale`; then each of FILES (a space-separated list) must keep
# a finding. Under AddressSanitizer (scripts/sanitize) every allocation
# carries redzones and shadow memory: the bound is scaled (`scale` is 4).
bomb_scan() {
  local scale=1
  if grep -qa __asan_init "$binary"; then scale=4; fi
  python3 "$security_dir/bounded_scan.py" "$binary" "$tree" "$scale" "$@" || fail "see above"
}

# fix --apply (fix_*.sh).
# fix_apply TREE [OPTION...]: `fix --apply`: standard output in $work/out,
# standard error in $work/err, the exit status in $status for the test to
# check.
fix_apply() {
  status=0
  "$binary" fix --apply "$@" >"$work/out" 2>"$work/err" || status=$?
}

# The result cache (cache_*.sh).
# cache_tree: `tree` ($work/tree), the empty tree that cache_scan scans, and
# $work/outside, a folder outside it, where the links the tree plants lead.
cache_tree() {
  tree=$work/tree
  mkdir -p "$tree" "$work/outside"
}
# cache_scan REPORT [OPTION...]: a JSON scan of $tree with these options and
# --profile, whose lines say how many files came from the cache: the report
# at REPORT, standard error at REPORT.err; fails unless it exits 0 to 3
# within 60 s.
cache_scan() {
  local out=$1
  shift
  local status=0
  timeout 60 "$binary" scan --no-git --format json --fail-on never --profile "$@" "$tree" >"$out" 2>"$out.err" ||
    status=$?
  [[ $status -le 3 ]] || fail "scan exited $status: $(cat "$out.err")"
}
