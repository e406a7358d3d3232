#!/usr/bin/env bash
# CUDA kernels of ops with a CPU path are fallback items, not blockers
# (docs/cxx-frontend.md "Device dispatch and the cpu-fallback pass"):
#   samples/cxx-cpu-fallback decides ADAPT, its kernels guarded cpu-fallback;
#   samples/cuda-extension stays KEEP_LINUX_GPU, except the op with a CPU kernel;
#   a copy whose CPU arm only raises turns that op's kernel into a blocker;
#   a copy that always builds CUDAExtension keeps the dispatch's guard.
set -euo pipefail
binary=$(realpath "$1") root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

scan() { (cd "$1" && "$binary" scan --no-git . --format json --fail-on never 2>/dev/null); }

# check.py REPORT EXPRESSION...: every expression must hold for the report.
check() {
  local report=$1
  shift
  python3 - "$report" "$@" <<'PY' || fail "$report"
import json, sys
report = json.load(open(sys.argv[1]))
decision = report["assessment"]["decision"]
findings = report["findings"]
def find(rule, path, line):
    return [f for f in findings if f["rule"] == rule and f["path"] == path and f["line"] == line]
for expression in sys.argv[2:]:
    if not eval(expression):
        sys.exit(f"does not hold: {expression}\n  outcome {decision['outcome']}: {decision['headline']}")
PY
}

sample=$root/samples/cxx-cpu-fallback
scan "$sample" >"$work/fallback.json"
grep -q '\*\*ADAPT\*\*' "$sample/README.md" || fail "the sample's README does not state ADAPT"
check "$work/fallback.json" \
  'decision["outcome"] == "ADAPT"' \
  'decision["deciding"] and all(f["kind"] == "fallback-item" for f in decision["deciding"])' \
  'sorted(f["summary"].split("`")[1] for f in decision["deciding"]) == ["box_area_kernel", "roi_mean_kernel"]' \
  'all(f["guard"] == "cpu-fallback" and f["severity"] == "info" for f in findings if f["path"] == "csrc/op_cuda.cu")' \
  'sorted(f["name"] for f in findings if f["rule"] == "MPS843") == ["box_area", "roi_mean_forward"]' \
  'all(f["severity"] == "warning" for f in findings if f["rule"] == "MPS843")' \
  'all(i["deferred"]["high"] > 0 for i in report["assessment"]["effort"]["items"] if i["kind"] == "kernel")' \
  'not [f for f in findings if f["rule"] == "MPS842"]'
echo "cxx-cpu-fallback: ADAPT, kernels guarded and deferred"

scan "$root/samples/cuda-extension" >"$work/extension.json"
check "$work/extension.json" \
  'decision["outcome"] == "KEEP_LINUX_GPU"' \
  'find("MPS801", "csrc/fused_ops_cuda.cu", 39)[0]["guard"] == "none"' \
  'any(f["kind"] == "critical-blocker" and f.get("line") == 39 for f in decision["deciding"])' \
  'find("MPS801", "csrc/fused_ops_cuda.cu", 18)[0]["guard"] == "cpu-fallback"' \
  'find("MPS830", "csrc/fused_ops_cuda.cu", 4)[0]["guard"] == "none"'
echo "cuda-extension: KEEP_LINUX_GPU; only scaled_add's kernel is guarded"

# The CPU arm of roi_mean_forward only raises: its kernel blocks again.
cp -r "$sample" "$work/raises"
python3 - "$work/raises/csrc/op.h" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
old = "  return roi_mean_forward_cpu(features, rois);"
assert old in text
open(path, "w").write(text.replace(old, '  AT_ERROR("roi_mean_forward has no CPU implementation");'))
PY
scan "$work/raises" >"$work/raises.json"
check "$work/raises.json" \
  'decision["outcome"] == "KEEP_LINUX_GPU"' \
  'find("MPS801", "csrc/op_cuda.cu", 12)[0]["guard"] == "none"' \
  'find("MPS801", "csrc/op_cuda.cu", 30)[0]["guard"] == "cpu-fallback"' \
  'find("MPS830", "csrc/op_cuda.cu", 3)[0]["guard"] == "none"' \
  'not [f for f in findings if f["rule"] == "MPS843" and f["name"] == "roi_mean_forward"]'
echo "a CPU arm that only raises: the kernel is a critical-path blocker"

# Always CUDAExtension, no CMake: the build is not optional, the dispatch still is.
cp -r "$sample" "$work/always-cuda"
rm "$work/always-cuda/CMakeLists.txt"
cat >"$work/always-cuda/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="boxops",
    ext_modules=[CUDAExtension("boxops._C", ["csrc/op_cpu.cpp", "csrc/vision.cpp", "csrc/op_cuda.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
PY
scan "$work/always-cuda" >"$work/always-cuda.json"
check "$work/always-cuda.json" \
  'find("MPS801", "csrc/op_cuda.cu", 12)[0]["guard"] == "cpu-fallback"' \
  'find("MPS620", "setup.py", 6)[0]["severity"] == "error"'
echo "an unconditional CUDAExtension: the build finding stays, the dispatch still guards the kernels"
