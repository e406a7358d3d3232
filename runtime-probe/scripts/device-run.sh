#!/usr/bin/env bash
# The CUDA-machine run written up in docs/runtime-probe.md ("CUDA run"):
# builds the probe against the LibTorch inside the machine's pip torch, runs
# the dispatcher cross-check on the 2.11.0 table (CUDA and CPU columns) and
# the probe engine with CUDA as the target, and leaves JSON under $OUT.
#
#   bash runtime-probe/scripts/device-run.sh JSON_INCLUDE_DIR [CATCH2_PREFIX]
#
# JSON_INCLUDE_DIR holds nlohmann/json.hpp and CATCH2_PREFIX a Catch2 v2
# install prefix (the machine has no packages for them; they travel, they are
# never committed). With Catch2 the LibTorch tests run against 2.11 too.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
json_dir=$1
catch_prefix=${2:-}
out=${OUT:-/tmp/probe-out}
mkdir -p "$out"
torch_dir=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
python3 -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda, "abi", torch._C._GLIBCXX_USE_CXX11_ABI, "devices", torch.cuda.device_count())' | tee "$out/device.txt"
build=/tmp/build-probe
bin=$build
if ! { cmake -S "$root/runtime-probe" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_PREFIX_PATH="$torch_dir/share/cmake;$catch_prefix" -DMPSAUDIT_JSON_INCLUDE_DIR="$json_dir" \
       && cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1; then
  echo "CMake build failed (tail of build.log below); compiling by hand" | tee -a "$out/device.txt"
  tail -40 "$out/build.log"
  bin=/tmp/build-manual
  mkdir -p "$bin"
  abi=$(python3 -c 'import torch;print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
  flags=(-std=c++17 -O1 -D_GLIBCXX_USE_CXX11_ABI=$abi "-DMPSAUDIT_PROBE_DATA_DIR=\"$root/runtime-probe\""
    -I"$root/runtime-probe/src" -I"$json_dir" -isystem "$torch_dir/include"
    -isystem "$torch_dir/include/torch/csrc/api/include")
  libs=(-L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" -Wl,--no-as-needed -ltorch -ltorch_cuda
    -ltorch_cpu -lc10_cuda -lc10 -Wl,--as-needed)
  src=$root/runtime-probe/src
  common=("$src"/{coverage_table,python_api,scan_report,verdicts,environment,probe_engine,input_recipes,output_compare,dispatcher_check,probe_run}.cpp)
  g++ "${flags[@]}" "${common[@]}" "$src/probe_main.cpp" "${libs[@]}" -o "$bin/mpsaudit-probe" 2>&1 | tail -30
  g++ "${flags[@]}" "${common[@]}" "$src/crosscheck_main.cpp" "${libs[@]}" -o "$bin/mpsaudit-probe-crosscheck" 2>&1 | tail -30
fi
if [[ $bin == "$build" && -x $build/probe_torch_tests ]]; then
  (cd "$build" && ctest --output-on-failure >"$out/ctest.log" 2>&1; echo "ctest rc=$?"; tail -5 "$out/ctest.log")
fi
"$bin/mpsaudit-probe" --environment >"$out/environment.json"
"$bin/mpsaudit-probe-crosscheck" --key CUDA "$root/runtime-probe/coverage/2.11.0.tsv" >"$out/crosscheck-cuda.json"
"$bin/mpsaudit-probe-crosscheck" --key CPU "$root/runtime-probe/coverage/2.11.0.tsv" >"$out/crosscheck-cpu.json"
report=$root/runtime-probe/tests/data/sample-report.json
time "$bin/mpsaudit-probe" --target cuda -o "$out/verdicts-cuda.json" "$report"
PYTORCH_ENABLE_MPS_FALLBACK=1 "$bin/mpsaudit-probe" --target mps -o "$out/verdicts-mps-unavailable.json" "$report"
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
for name in ("crosscheck-cuda.json", "crosscheck-cpu.json"):
    d = json.load(open(os.path.join(out, name)))
    print(name, d["libtorch"], d["key"], "compared", d["compared"], "agree", d["agree"],
          "rate %.4f" % d["agreement"], "table_only", len(d["table_only"]),
          "dispatcher_only", len(d["dispatcher_only"]), "not_in_dispatcher", len(d["not_in_dispatcher"]),
          "not_in_table", len(d["not_in_table"]))
d = json.load(open(os.path.join(out, "verdicts-cuda.json")))
print("summary", d["summary"])
print("env", json.dumps(d["environment"]))
for f in d["findings"]:
    print("finding", f["kind"], f["outcome"], f["evidence"], f["reason"][:160])
for o in d["operators"]:
    for r in o["live"]["results"]:
        if r["outcome"] != "ok":
            print("live", o["name"], r["aten"], r["outcome"], r["message"][:160])
PY
