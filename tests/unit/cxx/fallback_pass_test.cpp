// The cpu-fallback pass: from device dispatches, op registrations and
// optional build sources to the CUDA code a Mac never needs.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cxx_test_util.h"
#include "frontend/cxx/fallback_pass.h"
#include "frontend/cxx/registration_pass.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

namespace {

// A setup.py or CMakeLists.txt as the manifest front end describes it.
ProjectFile build_file(const std::string &path, const std::vector<std::pair<std::string, bool>> &sources) {
  ProjectFile file;
  file.path = path;
  file.kind = classify_path(path);
  for (const auto &[pattern, optional] : sources) {
    Fact fact;
    fact.kind = "build-source";
    fact.name = pattern;
    fact.span = Span{1, 1, 1, 1};
    fact.set_attribute("optional", optional ? "true" : "false");
    file.facts.facts.push_back(fact);
  }
  return file;
}

void run_passes(std::vector<ProjectFile> &files) {
  resolve_op_registrations(files);
  resolve_cpu_fallbacks(files);
}

const ProjectFile &file_named(const std::vector<ProjectFile> &files, const std::string &path) {
  for (const auto &file : files)
    if (file.path == path)
      return file;
  FAIL("no file " << path);
  throw;
}

// The guard of the first fact of `kind` on `line`.
Guard guard_at(const std::vector<ProjectFile> &files, const std::string &path, const std::string &kind,
               std::uint32_t line) {
  for (const auto &fact : file_named(files, path).facts.facts)
    if (fact.kind == kind && fact.span.line == line)
      return fact.guard;
  FAIL("no " << kind << " fact on " << path << ":" << line);
  return Guard::None;
}

const char *const kDispatchHeader = R"cpp(#include <torch/types.h>
at::Tensor pool_cpu(const at::Tensor &x);
at::Tensor pool_cuda(const at::Tensor &x);
at::Tensor warp_cuda(const at::Tensor &x);
inline at::Tensor pool(const at::Tensor &x) {
  if (x.is_cuda()) {
    return pool_cuda(x);
  }
  return pool_cpu(x);
}
inline at::Tensor warp(const at::Tensor &x) {
  if (x.is_cuda()) {
    return warp_cuda(x);
  }
  AT_ERROR("warp has no CPU implementation");
}
)cpp";

// pool_cuda -> launch_pool (another file) -> pool_kernel -> helper; warp_cuda -> warp_kernel.
const char *const kPoolCuda = R"cu(#include <ATen/cuda/CUDAContext.h>
void launch_pool(const float *x, float *y, int n, cudaStream_t stream);
at::Tensor pool_cuda(const at::Tensor &x) {
  auto y = at::empty_like(x);
  launch_pool(x.data_ptr<float>(), y.data_ptr<float>(), x.numel(), at::cuda::getCurrentCUDAStream());
  return y;
}
)cu";

const char *const kPoolKernels = R"cu(#include <cuda_runtime.h>
__device__ float helper(float v) { return __shfl_down_sync(0xffffffffu, v, 1); }
__global__ void pool_kernel(const float *x, float *y, int n) {
  y[threadIdx.x] = helper(x[threadIdx.x]);
}
void launch_pool(const float *x, float *y, int n, cudaStream_t stream) {
  pool_kernel<<<1, 32, 0, stream>>>(x, y, n);
}
)cu";

const char *const kWarpCuda = R"cu(#include <ATen/cuda/CUDAContext.h>
__global__ void warp_kernel(float *x) { atomicAdd(x, 1.f); }
at::Tensor warp_cuda(const at::Tensor &x) {
  warp_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>());
  return x;
}
)cu";

} // namespace

TEST_CASE("what a dispatch with a CPU arm reaches gets the cpu-fallback guard", "[cxx][pass][cpu-fallback]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/ops.h", kDispatchHeader));
  files.push_back(cxx_file("csrc/pool_cuda.cu", kPoolCuda));
  files.push_back(cxx_file("csrc/pool_kernels.cu", kPoolKernels));
  files.push_back(cxx_file("csrc/warp_cuda.cu", kWarpCuda));
  run_passes(files);

  // Through two files: the launcher, the kernel, the device helper, the includes.
  CHECK(guard_at(files, "csrc/pool_cuda.cu", "aten-cuda", 1) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/pool_cuda.cu", "aten-cuda", 5) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "cuda-kernel", 3) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "device-function", 2) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "warp-intrinsic", 2) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "kernel-launch", 7) == Guard::CpuFallback);
  // warp only raises on the CPU: its kernel stays a blocker.
  CHECK(guard_at(files, "csrc/warp_cuda.cu", "cuda-kernel", 2) == Guard::None);
  CHECK(guard_at(files, "csrc/warp_cuda.cu", "atomic", 2) == Guard::None);
  CHECK(guard_at(files, "csrc/warp_cuda.cu", "aten-cuda", 1) == Guard::None);
  // The dispatch's own test routes tensors (guarded); warp's rejects them.
  CHECK(guard_at(files, "csrc/ops.h", "aten-cuda", 6) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/ops.h", "aten-cuda", 12) == Guard::None);
}

TEST_CASE("code needed without a fallback is never guarded", "[cxx][pass][cpu-fallback]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/ops.h", kDispatchHeader));
  files.push_back(cxx_file("csrc/pool_cuda.cu", kPoolCuda));
  files.push_back(cxx_file("csrc/pool_kernels.cu", kPoolKernels));
  // The same launcher also serves an op registered for CUDA alone.
  files.push_back(
      cxx_file("csrc/fast.cu", R"cu(void launch_pool(const float *x, float *y, int n, cudaStream_t s);
at::Tensor fast_pool_cuda(const at::Tensor &x) {
  launch_pool(nullptr, nullptr, 0, nullptr);
  return x;
}
TORCH_LIBRARY_IMPL(ops, CUDA, m) { m.impl("fast_pool", &fast_pool_cuda); }
)cu"));
  run_passes(files);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "cuda-kernel", 3) == Guard::None);
  CHECK(guard_at(files, "csrc/pool_kernels.cu", "warp-intrinsic", 2) == Guard::None);
  // pool_cuda itself is only reached from the dispatch.
  CHECK(guard_at(files, "csrc/pool_cuda.cu", "aten-cuda", 5) == Guard::CpuFallback);
}

TEST_CASE("a CUDA op with a CPU registration guards its implementation", "[cxx][pass][cpu-fallback]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/ops.cu", R"cu(#include <ATen/cuda/CUDAContext.h>
__global__ void add_kernel(float *x) { x[0] += 1.f; }
__global__ void norm_kernel(float *x) { x[0] = 0.f; }
at::Tensor add_cuda(const at::Tensor &x) { add_kernel<<<1, 1>>>(x.data_ptr<float>()); return x; }
at::Tensor norm_cuda(const at::Tensor &x) { norm_kernel<<<1, 1>>>(x.data_ptr<float>()); return x; }
TORCH_LIBRARY_IMPL(ops, CUDA, m) {
  m.impl("add", &add_cuda);
  m.impl("norm", &norm_cuda);
}
)cu"));
  files.push_back(
      cxx_file("csrc/ops_cpu.cpp", "TORCH_LIBRARY_IMPL(ops, CPU, m) { m.impl(\"add\", &add_cpu); }\n"));
  run_passes(files);
  CHECK(guard_at(files, "csrc/ops.cu", "cuda-kernel", 2) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/ops.cu", "kernel-launch", 4) == Guard::CpuFallback);
  CHECK(guard_at(files, "csrc/ops.cu", "cuda-kernel", 3) == Guard::None);
  CHECK(guard_at(files, "csrc/ops.cu", "aten-cuda", 1) == Guard::None); // norm still needs the file
}

TEST_CASE("sources a build only compiles with CUDA are guarded", "[cxx][pass][cpu-fallback]") {
  const char *const kernels = R"cu(#include <ATen/cuda/CUDAContext.h>
__global__ void scale_kernel(float *x) { x[threadIdx.x] *= 2.f; }
void scale_cuda(float *x) { scale_kernel<<<1, 32, 0, at::cuda::getCurrentCUDAStream()>>>(x); }
)cu";
  SECTION("a glob that setup.py adds under a CUDA test") {
    std::vector<ProjectFile> files;
    files.push_back(build_file("setup.py", {{"*.cpp", false}, {"*.cu", true}}));
    files.push_back(cxx_file("lib/csrc/scale.cu", kernels));
    run_passes(files);
    CHECK(guard_at(files, "lib/csrc/scale.cu", "cuda-kernel", 2) == Guard::CpuFallback);
    CHECK(guard_at(files, "lib/csrc/scale.cu", "aten-cuda", 1) == Guard::CpuFallback);
    CHECK(guard_at(files, "lib/csrc/scale.cu", "kernel-launch", 3) == Guard::CpuFallback);
  }
  SECTION("the nearest build decides, and a required source stays") {
    std::vector<ProjectFile> files;
    files.push_back(build_file("setup.py", {{"*.cu", true}}));
    files.push_back(
        build_file("projects/extra/CMakeLists.txt", {{"${CMAKE_CURRENT_SOURCE_DIR}/csrc/scale.cu", false}}));
    files.push_back(cxx_file("projects/extra/csrc/scale.cu", kernels));
    files.push_back(cxx_file("lib/scale.cu", kernels));
    run_passes(files);
    CHECK(guard_at(files, "projects/extra/csrc/scale.cu", "cuda-kernel", 2) == Guard::None);
    CHECK(guard_at(files, "lib/scale.cu", "cuda-kernel", 2) == Guard::CpuFallback);
  }
  SECTION("an optional build does not hide an op with no CPU arm") {
    std::vector<ProjectFile> files;
    files.push_back(build_file("setup.py", {{"csrc/warp_cuda.cu", true}}));
    files.push_back(cxx_file("csrc/ops.h", kDispatchHeader));
    files.push_back(cxx_file("csrc/warp_cuda.cu", kWarpCuda));
    run_passes(files);
    CHECK(guard_at(files, "csrc/warp_cuda.cu", "cuda-kernel", 2) == Guard::None);
    CHECK(guard_at(files, "csrc/warp_cuda.cu", "aten-cuda", 1) == Guard::None);
  }
  SECTION("a build file that names other sources says nothing") {
    std::vector<ProjectFile> files;
    files.push_back(build_file("setup.py", {{"csrc/other.cu", true}}));
    files.push_back(cxx_file("csrc/scale.cu", kernels));
    run_passes(files);
    CHECK(guard_at(files, "csrc/scale.cu", "cuda-kernel", 2) == Guard::None);
  }
}

TEST_CASE("a pybind11 binding of a dispatching function has its CPU path", "[cxx][pass][cpu-fallback]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/ops.h", kDispatchHeader));
  files.push_back(cxx_file("csrc/bind.cpp", R"cpp(#include "ops.h"
bool with_cuda() {
#ifdef WITH_CUDA
  return true;
#else
  return false;
#endif
}
at::Tensor forward_cuda(const at::Tensor &x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("with_cuda", &with_cuda);
  m.def("pool", &pool);
  m.def("forward", &forward_cuda);
}
)cpp"));
  run_passes(files);
  const ProjectFile &bind = file_named(files, "csrc/bind.cpp");
  const Fact &with_cuda = registration(bind, "TORCH_EXTENSION_NAME::with_cuda");
  CHECK(attribute(with_cuda, "backend") == "CUDA"); // by its name
  CHECK(attribute(with_cuda, "device_dispatch") == "true");
  CHECK(attribute(with_cuda, "fallbacks") == "cpu");
  CHECK(attribute(with_cuda, "critical_path") == "false");
  const Fact &forward = registration(bind, "TORCH_EXTENSION_NAME::forward");
  CHECK(attribute(forward, "device_dispatch") == "false");
  CHECK(attribute(forward, "critical_path") == "true");
}

TEST_CASE("files without CUDA and malformed attributes leave the pass calm", "[cxx][pass][cpu-fallback]") {
  std::vector<ProjectFile> files;
  ProjectFile odd = cxx_file("csrc/odd.cu", "__global__ void k(float *x) { x[0] = 1.f; }\n");
  for (auto &fact : odd.facts.facts)
    fact.set_attribute("body_end_line", "not a number");
  files.push_back(std::move(odd));
  files.push_back(build_file("setup.py", {{"", true}, {"**", true}}));
  ProjectFile python;
  python.path = "model.py";
  python.kind = FileKind::Python;
  files.push_back(std::move(python));
  REQUIRE_NOTHROW(run_passes(files));
  // "**" names every file: an optional build.
  CHECK(guard_at(files, "csrc/odd.cu", "cuda-kernel", 1) == Guard::CpuFallback);
}

TEST_CASE("a plugin that only a JIT build behind a fallback compiles is guarded whole, its binding included",
          "[cxx][pass][cpu-fallback]") {
  const char *const binding = R"cpp(#include <torch/extension.h>
torch::Tensor act_cuda(const torch::Tensor &x);
torch::Tensor act(const torch::Tensor &x) { return act_cuda(x); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("act", &act, "act (CUDA)"); }
)cpp";
  const char *const kernels = R"cu(#include <torch/extension.h>
__global__ void act_kernel(float *x) { x[threadIdx.x] *= 2.f; }
torch::Tensor act_cuda(const torch::Tensor &x) { act_kernel<<<1, 32>>>(x.data_ptr<float>()); return x; }
)cu";
  // The Python side: build-source facts as the Python front end writes them
  // for a guarded call (runs_without) or an unguarded one.
  const auto jit_build = [](bool behind_fallback) {
    ProjectFile loader =
        build_file("plugins/act.py", {{"act.cpp", behind_fallback}, {"act.cu", behind_fallback}});
    loader.kind = FileKind::Python;
    for (Fact &fact : loader.facts.facts)
      if (behind_fallback)
        fact.set_attribute("runs_without", "true");
    return loader;
  };
  SECTION("behind a fallback") {
    std::vector<ProjectFile> files{jit_build(true), cxx_file("plugins/act.cpp", binding),
                                   cxx_file("plugins/act.cu", kernels)};
    run_passes(files);
    CHECK(guard_at(files, "plugins/act.cpp", "op-registration", 4) == Guard::CpuFallback);
    CHECK(guard_at(files, "plugins/act.cu", "cuda-kernel", 2) == Guard::CpuFallback);
    CHECK(guard_at(files, "plugins/act.cu", "kernel-launch", 3) == Guard::CpuFallback);
  }
  SECTION("near case: built with no fallback, the op registered for CUDA alone is needed") {
    std::vector<ProjectFile> files{jit_build(false), cxx_file("plugins/act.cpp", binding),
                                   cxx_file("plugins/act.cu", kernels)};
    run_passes(files);
    CHECK(guard_at(files, "plugins/act.cpp", "op-registration", 4) == Guard::None);
    CHECK(guard_at(files, "plugins/act.cu", "cuda-kernel", 2) == Guard::None);
  }
}

TEST_CASE("a pybind11 binding whose extension Python imports behind a fallback is guarded",
          "[cxx][pass][cpu-fallback]") {
  const auto scan = [](Guard import_guard) {
    std::vector<ProjectFile> files;
    files.push_back(cxx_file("clib/cuda/kernels.cu", R"cu(#include <torch/extension.h>
__global__ void distance_kernel(float *x) { x[0] = 0.f; }
torch::Tensor distance_cuda(const torch::Tensor &x) { distance_kernel<<<1, 1>>>(x.data_ptr<float>()); return x; }
)cu"));
    files.push_back(cxx_file("clib/cuda/binding.cpp", R"cpp(#include <torch/extension.h>
torch::Tensor distance_cuda(const torch::Tensor &x);
torch::Tensor distance(const torch::Tensor &x) { TORCH_CHECK(x.is_cuda(), "CUDA only"); return distance_cuda(x); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("distance", &distance, "distance"); }
)cpp"));
    // setup.py: the two sources make the module pkg.distance_cuda.
    ProjectFile setup =
        build_file("setup.py", {{"clib/cuda/kernels.cu", false}, {"clib/cuda/binding.cpp", false}});
    for (Fact &fact : setup.facts.facts)
      fact.set_attribute("extension", "pkg.distance_cuda");
    files.push_back(setup);
    ProjectFile loader;
    loader.path = "pkg/loader.py";
    loader.kind = classify_path(loader.path);
    Fact import;
    import.kind = "import";
    import.name = "pkg.distance_cuda";
    import.span = Span{3, 1, 3, 1};
    import.guard = import_guard;
    loader.facts.facts.push_back(import);
    files.push_back(loader);
    run_passes(files);
    return files;
  };
  const auto guarded = scan(Guard::ImportFallback);
  CHECK(guard_at(guarded, "clib/cuda/binding.cpp", "op-registration", 4) == Guard::CpuFallback);
  CHECK(guard_at(guarded, "clib/cuda/kernels.cu", "cuda-kernel", 2) == Guard::CpuFallback);
  // Imported without a fallback: the binding and its kernel are needed.
  const auto required = scan(Guard::None);
  CHECK(guard_at(required, "clib/cuda/binding.cpp", "op-registration", 4) == Guard::None);
  CHECK(guard_at(required, "clib/cuda/kernels.cu", "cuda-kernel", 2) == Guard::None);
}
