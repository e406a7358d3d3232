// The C++/CUDA front end: every fact kind through the AST path and through
// the raw-lexer path, missing headers, syntax errors, a 5 MB generated file,
// compile_commands.json, Metal evidence, and concurrent use.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "cxx_test_util.h"
#include "frontend/cxx/ast_scan.h"
#include "frontend/cxx/cxx_frontend.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

namespace {

bool has_diagnostic(const FileFacts &facts, const std::string &code) {
  return std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                     [&](const Diagnostic &d) { return d.code == code; });
}

// One file that exercises every fact kind the front end emits.
const char *const kEveryKind = R"cu(#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <thrust/sort.h>
#include <cooperative_groups.h>
#include <mma.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>
namespace cg = cooperative_groups;

__device__ float warp_reduce(float v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  return v;
}

__host__ __device__ inline float square(float x) { return x * x; }

__global__ void reduce_kernel(const float *x, float *out, int n) {
  __shared__ float partial[32];
  double total = 0.0;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  v = warp_reduce(v);
  partial[threadIdx.x % 32] = v;
  __syncthreads();
  atomicAdd(out, partial[0]);
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  total += v;
}

__global__ void grid_kernel(float *x) {
  auto grid = cg::this_grid();
  grid.sync();
  nvcuda::wmma::fragment<int, 16, 16, 16, float> frag;
  float t = tex2D<float>(0, 0.5f, 0.5f);
}

at::Tensor run(const at::Tensor &x) {
  TORCH_CHECK(x.is_cuda(), "x must be on CUDA");
  float *buffer = nullptr;
  cudaMalloc(&buffer, 16);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaDeviceSynchronize();
  cudaGraphLaunch(0, stream);
  cublasHandle_t handle;
  cublasCreate(&handle);
  thrust::sort(thrust::device, buffer, buffer + 4);
  reduce_kernel<<<4, 32, 0, stream>>>(buffer, buffer, 4);
  void *args[] = {&buffer};
  cudaLaunchKernel((void *)grid_kernel, 1, 1, args, 0, stream);
  auto current = at::cuda::getCurrentCUDAStream();
  auto y = x.cuda();
  auto z = torch::zeros({1}, torch::kCUDA);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "run", [&] { reduce_kernel<<<1, 32>>>(buffer, buffer, 1); });
  cudaFree(buffer);
  return y;
}

TORCH_LIBRARY_IMPL(demo, CUDA, m) {
  m.impl("reduce", &run);
}
TORCH_LIBRARY_IMPL(demo, MPS, m) {
  m.impl("reduce", &run_mps);
}
)cu";

void check_every_kind(const FileFacts &facts) {
  const Fact *kernel = find_fact(facts, "cuda-kernel", "reduce_kernel");
  CHECK(kernel->span.line == 17);
  CHECK(attribute(kernel, "device_lines") == "13");
  CHECK(attribute(kernel, "shared_memory") == "1");
  CHECK(attribute(kernel, "barriers") == "1");
  CHECK(attribute(kernel, "atomics") == "1");
  CHECK(attribute(kernel, "inline_ptx") == "1");
  CHECK(attribute(kernel, "has_double") == "true");
  CHECK(attribute(kernel, "launches") == "2");
  const Fact *grid = find_fact(facts, "cuda-kernel", "grid_kernel");
  CHECK(attribute(grid, "tensor_core") == "1");
  CHECK(attribute(grid, "has_double") == "false");
  CHECK(attribute(grid, "launches") == "1");

  const Fact *device = find_fact(facts, "device-function", "warp_reduce");
  CHECK(attribute(device, "host_device") == "false");
  CHECK(attribute(device, "warp_intrinsics") == "1");
  CHECK(attribute(find_fact(facts, "device-function", "square"), "host_device") == "true");

  CHECK(facts_of(facts, "kernel-launch").size() == 3);
  CHECK(attribute(find_fact(facts, "kernel-launch", "grid_kernel"), "via") == "cudaLaunchKernel");
  CHECK(attribute(find_fact(facts, "cuda-api", "cudaMalloc"), "category") == "memory");
  CHECK(attribute(find_fact(facts, "cuda-api", "cudaFree"), "category") == "memory");
  CHECK(attribute(find_fact(facts, "cuda-api", "cudaStreamCreate"), "category") == "stream-event");
  CHECK(attribute(find_fact(facts, "cuda-api", "cudaDeviceSynchronize"), "category") == "device");
  CHECK(attribute(find_fact(facts, "cuda-api", "cudaGraphLaunch"), "category") == "graph");
  CHECK(find_fact(facts, "cuda-api", "cudaLaunchKernel") == nullptr); // a launch, not an API use

  std::vector<std::string> libraries;
  for (const Fact *fact : facts_of(facts, "cuda-library"))
    libraries.push_back(fact->name);
  CHECK(std::count(libraries.begin(), libraries.end(), "cublas") == 2); // include + call
  CHECK(std::count(libraries.begin(), libraries.end(), "thrust") == 2); // include + call

  CHECK(find_fact(facts, "inline-ptx", "mov.u32") != nullptr);
  CHECK(find_fact(facts, "warp-intrinsic", "__shfl_down_sync") != nullptr);
  CHECK(find_fact(facts, "atomic", "atomicAdd") != nullptr);
  CHECK(find_fact(facts, "tensor-core", "wmma::fragment") != nullptr);
  CHECK(find_fact(facts, "texture", "tex2D") != nullptr);
  CHECK(attribute(find_fact(facts, "cooperative-groups", "this_grid"), "grid_sync") == "true");
  CHECK(attribute(find_fact(facts, "cooperative-groups", "cooperative_groups"), "grid_sync") == "false");

  CHECK(attribute(find_fact(facts, "aten-cuda", "ATen/cuda/CUDAContext.h"), "category") == "glue");
  CHECK(attribute(find_fact(facts, "aten-cuda", "at::cuda::getCurrentCUDAStream"), "category") == "glue");
  CHECK(attribute(find_fact(facts, "aten-cuda", ".is_cuda()"), "category") == "check");
  CHECK(attribute(find_fact(facts, "aten-cuda", ".cuda()"), "category") == "device");
  CHECK(attribute(find_fact(facts, "aten-cuda", "torch::kCUDA"), "category") == "device");
  const Fact *dispatch = find_fact(facts, "aten-cuda", "AT_DISPATCH_FLOATING_TYPES");
  CHECK(attribute(dispatch, "instantiates_double") == "true");

  std::vector<const Fact *> registrations = facts_of(facts, "op-registration");
  REQUIRE(registrations.size() == 2);
  const Fact *cuda = registrations[0];
  CHECK(cuda->name == "demo::reduce");
  CHECK(attribute(cuda, "backend") == "CUDA");
  CHECK(attribute(cuda, "function") == "run");
  CHECK(attribute(cuda, "has_mps_impl") == "true"); // resolved within the file
  CHECK(attribute(cuda, "critical_path") == "false");
  CHECK(attribute(registrations[1], "backend") == "MPS");
  CHECK(attribute(find_fact(facts, "metal-port", "mps-registration"), "evidence").find("MPS") !=
        std::string::npos);
}

} // namespace

TEST_CASE("every fact kind through the AST path", "[cxx][ast]") {
  const FileFacts facts = extract("kernels.cu", kEveryKind);
  REQUIRE(facts.mode == "ast");
  check_every_kind(facts);
  // The AST found the kernels itself.
  CHECK(attribute(find_fact(facts, "cuda-kernel", "reduce_kernel"), "origin") == "ast");
  CHECK(attribute(find_fact(facts, "device-function", "square"), "origin") == "ast");
}

TEST_CASE("every fact kind through the raw-lexer path", "[cxx][lexical]") {
  const FileFacts facts = extract("kernels.cu", kEveryKind, CxxParseMode::Lexical);
  REQUIRE(facts.mode == "lexical");
  check_every_kind(facts);
  CHECK(attribute(find_fact(facts, "cuda-kernel", "reduce_kernel"), "origin") == "lexical");
}

TEST_CASE("the AST sees kernels that only exist after macro expansion", "[cxx][ast]") {
  const std::string text = "#define KERNEL(name) __global__ void name##_kernel\n"
                           "KERNEL(relu)(float *x) { x[threadIdx.x] = 0.f; }\n";
  const FileFacts ast = extract("macro.cu", text);
  REQUIRE(ast.mode == "ast");
  const Fact *kernel = find_fact(ast, "cuda-kernel", "relu_kernel");
  REQUIRE(kernel != nullptr);
  CHECK(kernel->span.line == 2);
  CHECK(find_fact(extract("macro.cu", text, CxxParseMode::Lexical), "cuda-kernel", "relu_kernel") == nullptr);
}

TEST_CASE("a launch written in a dispatch macro's argument is one launch, at the line it is written on",
          "[cxx][ast]") {
  // A BOOL_SWITCH-style macro wraps its lambda argument: clang's expansion
  // location of the launch is the macro's line, the token scan's the line
  // of the `<<<`. The AST must report it where it is written, or the two
  // paths report the same launch twice.
  const std::string text = "#define SWITCH(cond, ...) do { if (cond) { __VA_ARGS__(); } } while (0)\n"
                           "__global__ void step_kernel(float *x) { x[threadIdx.x] = 1.f; }\n"
                           "void run(float *x, bool even) {\n"
                           "  SWITCH(even, [&] {\n"
                           "    dim3 grid(1);\n"
                           "    step_kernel<<<grid, 32>>>(x);\n"
                           "  });\n"
                           "}\n";
  const FileFacts facts = extract("switch.cu", text, CxxParseMode::Ast);
  REQUIRE(facts.mode == "ast");
  const std::vector<const Fact *> launches = facts_of(facts, "kernel-launch");
  REQUIRE(launches.size() == 1);
  CHECK(launches.front()->span.line == 6);
  CHECK(launches.front()->name == "step_kernel");
}

TEST_CASE("missing headers are diagnosed and the rest of the file is still read", "[cxx]") {
  const std::string text = "#include <torch/extension.h>\n"
                           "#include \"local_helpers.cuh\"\n"
                           "#include <vector>\n"
                           "template <typename T>\n"
                           "__global__ void axpy(T a, const T *x, T *y, int n) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i < n) y[i] += a * x[i];\n"
                           "}\n"
                           "void launch(torch::Tensor x, torch::Tensor y) {\n"
                           "  axpy<float><<<1, 256>>>(2.f, x.data_ptr<float>(), y.data_ptr<float>(), 1);\n"
                           "}\n";
  const FileFacts facts = extract("axpy.cu", text);
  CHECK(facts.mode == "ast");
  std::vector<std::pair<std::uint32_t, std::string>> missing;
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == "missing-include") {
      CHECK(diagnostic.level == DiagnosticLevel::Warning);
      CHECK(diagnostic.path == "axpy.cu");
      missing.emplace_back(diagnostic.line, diagnostic.message);
    }
  REQUIRE(missing.size() == 3);
  CHECK(missing[0].first == 1);
  CHECK(missing[0].second.find("torch/extension.h") != std::string::npos);
  CHECK(missing[1].first == 2);
  CHECK(missing[2].first == 3);
  const Fact *kernel = find_fact(facts, "cuda-kernel", "axpy");
  REQUIRE(kernel != nullptr);
  CHECK(attribute(kernel, "origin") == "ast");
  CHECK(attribute(kernel, "template") == "true");
  CHECK(attribute(kernel, "launches") == "1");
  CHECK(find_fact(facts, "kernel-launch", "axpy") != nullptr);
}

TEST_CASE("a few syntax errors leave a usable AST, a mangled file falls back", "[cxx]") {
  const std::string slightly_broken = "__global__ void ok_kernel(float *x) { x[0] = 1.f; }\n"
                                      "void broken( { int = ; }\n"
                                      "__global__ void later_kernel(float *x) { x[1] = 2.f; }\n";
  const FileFacts first = extract("broken.cu", slightly_broken);
  CHECK(first.mode == "ast");
  CHECK(has_diagnostic(first, "parse-error"));
  CHECK(find_fact(first, "cuda-kernel", "ok_kernel") != nullptr);
  CHECK(find_fact(first, "cuda-kernel", "later_kernel") != nullptr);

  std::string mangled = "__global__ void survivor(float *x) { x[0] = 0.f; }\n";
  for (int i = 0; i < 60; ++i)
    mangled += ") ] } ( int int float ;; < > >> <<\n";
  const FileFacts second = extract("mangled.cu", mangled);
  CHECK(second.mode == "lexical");
  CHECK(has_diagnostic(second, "lexical-fallback"));
  CHECK(find_fact(second, "cuda-kernel", "survivor") != nullptr);
}

TEST_CASE("a 5 MB generated .cu file goes through the linear lexer path", "[cxx][large]") {
  std::string text = "#include <cuda_runtime.h>\n";
  const int kernels = 20000;
  text.reserve(5u << 20);
  for (int k = 0; text.size() < (5u << 20); ++k) {
    const std::string id = std::to_string(k);
    text += "__global__ void kernel_" + id +
            "(float *x, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) x[i] = x[i] * 2.0f + " +
            id +
            ".0f;\n"
            "}\n"
            "void launch_" +
            id +
            "(float *x, int n) {\n"
            "  kernel_" +
            id +
            "<<<(n + 255) / 256, 256>>>(x, n);\n"
            "  cudaMemset(x, 0, n);\n"
            "}\n";
  }
  REQUIRE(text.size() > kCxxAstByteLimit);
  const FileFacts facts = extract("generated.cu", text);
  CHECK(facts.mode == "lexical");
  REQUIRE(has_diagnostic(facts, "lexical-fallback"));
  CHECK(facts.diagnostics.front().level == DiagnosticLevel::Note);
  const auto kernel_facts = facts_of(facts, "cuda-kernel");
  CHECK(kernel_facts.size() > static_cast<std::size_t>(kernels));
  CHECK(facts_of(facts, "kernel-launch").size() == kernel_facts.size());
  CHECK(facts_of(facts, "cuda-api").size() == kernel_facts.size());
  CHECK(attribute(kernel_facts.front(), "device_lines") == "4");
  CHECK(attribute(kernel_facts.back(), "launches") == "1");
}

TEST_CASE("compile_commands.json supplies the command line", "[cxx][compile-commands]") {
  namespace fs = std::filesystem;
  // A fresh directory per section: databases are cached per directory for
  // the whole run, as they are during a scan.
  static int section = 0;
  const fs::path directory =
      fs::temp_directory_path() / ("mpsaudit-cxx-compile-commands-" + std::to_string(++section));
  fs::remove_all(directory);
  fs::create_directories(directory);
  const fs::path file = directory / "named.cu";
  const std::string text = "__global__ void KERNEL_NAME(float *x) { x[0] = 0.f; }\n";
  std::ofstream(file) << text;
  auto write_database = [&](const std::string &compiler) {
    std::ofstream(directory / "compile_commands.json")
        << "[{\"directory\": \"" << directory.string() << "\", \"file\": \"named.cu\", "
        << "\"command\": \"" << compiler
        << " -x cuda --cuda-host-only -nocudainc -nocudalib -DKERNEL_NAME=from_database -c "
           "named.cu -o named.o\"}]";
  };
  SourceFile input = source("named.cu", text);
  input.absolute_path = file.string();

  SECTION("a clang command runs as given") {
    write_database("/usr/bin/clang++");
    ExtractOptions options;
    options.compile_commands_dir = directory.string();
    const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
    CHECK(facts.mode == "ast");
    CHECK(find_fact(facts, "cuda-kernel", "from_database") != nullptr);
  }
  SECTION("an nvcc command lends its -D and -I flags to the fixed command line") {
    write_database("/usr/local/cuda/bin/nvcc");
    ExtractOptions options;
    options.root = directory.string(); // found at the root without -p
    const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
    CHECK(facts.mode == "ast");
    CHECK(find_fact(facts, "cuda-kernel", "from_database") != nullptr);
  }
  fs::remove_all(directory);
}

TEST_CASE("pybind11 bindings take their backend from the file", "[cxx]") {
  const std::string binding = "torch::Tensor forward_cuda(torch::Tensor x);\n"
                              "torch::Tensor helper(torch::Tensor x);\n"
                              "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                              "  m.def(\"forward\", &forward_cuda, \"forward\");\n"
                              "  m.def(\"helper\", &helper);\n"
                              "}\n";
  const FileFacts facts = extract("bind.cpp", binding);
  const Fact *forward = find_fact(facts, "op-registration", "TORCH_EXTENSION_NAME::forward");
  CHECK(attribute(forward, "via") == "pybind11");
  CHECK(attribute(forward, "backend") == "CUDA");
  CHECK(attribute(forward, "backend_evidence") == "function-name");
  CHECK(attribute(find_fact(facts, "op-registration", "TORCH_EXTENSION_NAME::helper"), "backend") == "CPU");
}

TEST_CASE("Metal shaders and Objective-C++ host code are port evidence", "[cxx][metal]") {
  SourceFile shader =
      source("kernels/scale.metal", "#include <metal_stdlib>\nusing namespace metal;\n"
                                    "// kernel void commented_out()\n"
                                    "kernel void scale(device float *x [[buffer(0)]],\n"
                                    "                  uint i [[thread_position_in_grid]]) { x[i] *= 2; }\n"
                                    "[[kernel]] void shift(device float *x [[buffer(0)]]) {}\n");
  const FileFacts metal = extract_metal_file(shader, {});
  CHECK(metal.mode == "lexical");
  const Fact *fact = find_fact(metal, "metal-port", "metal-shader");
  CHECK(attribute(fact, "kernels") == "2");
  CHECK(attribute(fact, "kernel_names") == "scale,shift");
  CHECK(fact->span.line == 4);

  const FileFacts host = extract("ops/scale.mm", "#import <Metal/Metal.h>\n"
                                                 "void run() {\n"
                                                 "  id<MTLDevice> device = MTLCreateSystemDefaultDevice();\n"
                                                 "  MPSGraph *graph = [MPSGraph new];\n"
                                                 "}\n");
  const Fact *evidence = find_fact(host, "metal-port", "metal-host");
  REQUIRE(evidence != nullptr);
  CHECK(evidence->span.line == 1);
  CHECK(attribute(evidence, "evidence") == "Metal/Metal.h,MTLDevice,MTLCreateSystemDefaultDevice,MPSGraph");
}

TEST_CASE("the extractor can run on many threads at once", "[cxx][threads]") {
  const FileFacts expected = extract("kernels.cu", kEveryKind);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < 3; ++round) {
        const FileFacts facts = extract("kernels.cu", kEveryKind);
        if (facts.facts.size() != expected.facts.size() || facts.mode != expected.mode)
          ++mismatches;
      }
    });
  for (auto &thread : threads)
    thread.join();
  CHECK(mismatches == 0);
}

TEST_CASE("quoted includes next to the file are read from disk", "[cxx][ast]") {
  namespace fs = std::filesystem;
  const fs::path directory = fs::temp_directory_path() / "mpsaudit-cxx-local-include";
  fs::remove_all(directory);
  fs::create_directories(directory / "csrc");
  std::ofstream(directory / "csrc" / "names.cuh") << "#define SOFTMAX_KERNEL softmax_forward\n";
  const std::string text = "#include \"names.cuh\"\n"
                           "__global__ void SOFTMAX_KERNEL(float *x) { x[0] = 1.f; }\n";
  SourceFile input = source("csrc/softmax.cu", text);
  input.absolute_path = (directory / "csrc" / "softmax.cu").string();
  ExtractOptions options;
  options.root = directory.string();
  const FileFacts facts = extract_cxx_file(input, options, CxxParseMode::Auto);
  CHECK(facts.mode == "ast");
  CHECK_FALSE(has_diagnostic(facts, "missing-include"));
  const Fact *kernel = find_fact(facts, "cuda-kernel", "softmax_forward");
  REQUIRE(kernel != nullptr);
  CHECK(kernel->span.line == 2);
  fs::remove_all(directory);
}

namespace {

// Everything about a file's facts that rules can read, one line per fact.
std::string describe(const FileFacts &facts) {
  std::string text;
  for (const auto &fact : facts.facts) {
    text += fact.kind + " " + fact.name + " " + std::to_string(fact.span.line) + ":" +
            std::to_string(fact.span.column) + "-" + std::to_string(fact.span.end_column) +
            " guard=" + std::to_string(static_cast<int>(fact.guard)) + " scope=" + fact.scope;
    for (const auto &[key, value] : fact.attributes)
      text += " " + key + "=" + value;
    text += "\n";
  }
  return text;
}

// The facts of `input` and how many clang parses it took.
std::pair<FileFacts, std::uint64_t> extract_counting(const SourceFile &input, const ExtractOptions &options,
                                                     CxxParseMode mode) {
  const std::uint64_t before = cxx::clang_runs();
  FileFacts facts = extract_cxx_file(input, options, mode);
  return {std::move(facts), cxx::clang_runs() - before};
}

// The gate keeps clang away from `input`, and what clang would have built
// changes no fact.
void check_gate_keeps_clang_away(const SourceFile &input, const ExtractOptions &options) {
  const auto [gated, gated_runs] = extract_counting(input, options, CxxParseMode::Auto);
  CHECK(gated_runs == 0);
  CHECK(gated.mode == "lexical");
  const auto [forced, forced_runs] = extract_counting(input, options, CxxParseMode::Ast);
  CHECK(forced_runs == 1);
  CHECK(forced.mode == "ast");
  CHECK(describe(gated) == describe(forced));
}

// The lines of the launches clang found.
std::vector<std::uint32_t> ast_launch_lines(const FileFacts &facts) {
  std::vector<std::uint32_t> lines;
  for (const Fact *launch : facts_of(facts, "kernel-launch"))
    if (attribute(launch, "origin") == "ast")
      lines.push_back(launch->span.line);
  return lines;
}

// The gate sends `input` to clang, which finds its `pause` instruction.
void check_clang_finds_the_pause(const SourceFile &input, const ExtractOptions &options) {
  const auto [facts, runs] = extract_counting(input, options, CxxParseMode::Auto);
  CHECK(runs == 1);
  CHECK(find_fact(facts, "inline-ptx", "pause") != nullptr);
}

// A scan root in the temporary directory holding `headers` (paths relative to
// it), and a file to scan inside it.
class HeaderTree {
public:
  HeaderTree(const std::string &name, const std::map<std::string, std::string> &headers)
      : directory_(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(directory_);
    for (const auto &[path, text] : headers) {
      std::filesystem::create_directories((directory_ / path).parent_path());
      std::ofstream(directory_ / path) << text;
    }
    options_.root = directory_.string();
  }
  ~HeaderTree() { std::filesystem::remove_all(directory_); }
  HeaderTree(const HeaderTree &) = delete;
  HeaderTree &operator=(const HeaderTree &) = delete;

  SourceFile file(const std::string &path, const std::string &text) const {
    SourceFile input = source(path, text);
    input.absolute_path = (directory_ / path).string();
    return input;
  }
  const ExtractOptions &options() const { return options_; }

private:
  std::filesystem::path directory_;
  ExtractOptions options_;
};

} // namespace

TEST_CASE("clang runs only on files where it could add to the token model", "[cxx][gate]") {
  // Bindings and host code: registrations, CUDA API calls and a runtime
  // launch, but no kernel, launch syntax, shared memory or assembly.
  const std::string bindings = "#include <torch/extension.h>\n"
                               "#include <cuda_runtime.h>\n"
                               "at::Tensor scale(at::Tensor x, double factor);\n"
                               "void copy(float *dst, const float *src, size_t n) {\n"
                               "  cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice);\n"
                               "  double ratio = static_cast<double>(n);\n"
                               "  (void)ratio;\n"
                               "}\n"
                               "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"scale\", &scale); }\n"
                               "TORCH_LIBRARY_IMPL(demo, CUDA, m) { m.impl(\"scale\", &scale); }\n";
  const std::string kernel = "#include <torch/extension.h>\n"
                             "__global__ void twice(float *x) { x[threadIdx.x] *= 2.0; }\n"
                             "void run(float *x) { twice<<<1, 32>>>(x); }\n";

  for (const char *path : {"bindings.cpp", "host_only.cu"}) {
    DYNAMIC_SECTION(path) {
      const auto [gated, gated_runs] = extract_counting(source(path, bindings), {}, CxxParseMode::Auto);
      CHECK(gated_runs == 0);
      CHECK(gated.mode == "lexical");
      CHECK(gated.diagnostics.empty()); // no missing-include: no parse needed the headers
      CHECK_FALSE(facts_of(gated, "op-registration").empty());
      // What clang would have built changes no fact.
      const auto [forced, forced_runs] = extract_counting(source(path, bindings), {}, CxxParseMode::Ast);
      CHECK(forced_runs == 1);
      CHECK(forced.mode == "ast");
      CHECK(describe(gated) == describe(forced));
    }
  }

  SECTION("a kernel still goes to clang") {
    const auto [facts, runs] = extract_counting(source("twice.cu", kernel), {}, CxxParseMode::Auto);
    CHECK(runs == 1);
    CHECK(facts.mode == "ast");
    CHECK(attribute(find_fact(facts, "cuda-kernel", "twice"), "origin") == "ast");
    CHECK(attribute(find_fact(facts, "cuda-kernel", "twice"), "has_double") == "false");
    CHECK(describe(facts) == describe(extract("twice.cu", kernel, CxxParseMode::Ast)));
  }

  SECTION("assembly from a macro of an included header still goes to clang") {
    const HeaderTree tree("mpsaudit-cxx-gate-include",
                          {{"src/spin.h", "#include \"util/pause.h\"\n"},
                           {"src/util/pause.h", "#define CPU_PAUSE() __asm__ volatile(\"pause\")\n"}});
    const std::string text = "#include \"spin.h\"\n"
                             "void wait_a_bit() { CPU_PAUSE(); }\n";
    const auto [facts, runs] =
        extract_counting(tree.file("src/spin.cpp", text), tree.options(), CxxParseMode::Auto);
    CHECK(runs == 1);
    CHECK(facts.mode == "ast");
    const Fact *pause = find_fact(facts, "inline-ptx", "pause");
    REQUIRE(pause != nullptr);
    CHECK(pause->span.line == 2);
    CHECK(find_fact(extract("src/spin.cpp", text, CxxParseMode::Lexical), "inline-ptx", "pause") == nullptr);
  }

  SECTION("so does assembly from a header macro that another macro expands") {
    const HeaderTree tree(
        "mpsaudit-cxx-gate-macro-chain",
        {{"spin.h", "#define CPU_PAUSE() __asm__ volatile(\"pause\")\n"
                    "#define BACK_OFF(n) \\\n  for (int i = 0; i < (n); ++i) CPU_PAUSE()\n"}});
    const std::string text = "#include \"spin.h\"\n"
                             "void wait_a_bit() { BACK_OFF(64); }\n";
    check_clang_finds_the_pause(tree.file("spin.cpp", text), tree.options());
  }

  SECTION("so does assembly from a macro whose name another macro pastes together") {
    const HeaderTree tree("mpsaudit-cxx-gate-pasted-name",
                          {{"spin.h", "#define SPIN_8() __asm__ volatile(\"pause\")\n"
                                      "#define SPIN(n) SPIN_##n()\n"
                                      "#define CAT(a, b) a##b\n"
                                      "#define LOG(format, ...) printf(format, ## __VA_ARGS__)\n"}});
    for (const char *use : {"SPIN(8)", "CAT(SPIN_, 8)()"}) {
      DYNAMIC_SECTION(use) {
        const std::string text = std::string("#include \"spin.h\"\nvoid wait_a_bit() { ") + use + "; }\n";
        check_clang_finds_the_pause(tree.file("spin.cpp", text), tree.options());
      }
    }
    // GNU's `, ## __VA_ARGS__` pastes no name together.
    check_gate_keeps_clang_away(
        tree.file("log.cpp", "#include \"spin.h\"\nvoid report(int n) { LOG(\"%d\", n); }\n"),
        tree.options());
  }

  SECTION("a macro defined twice is read with each definition's own parameters") {
    // Read with the first definition's parameter, `p` and `q` would be
    // written pieces that name no macro; the live definition pastes two
    // parameters, which may name any.
    const HeaderTree tree("mpsaudit-cxx-gate-two-definitions",
                          {{"spin.h", "#if defined(FAST)\n#define JOIN(a) SPIN_##a\n#else\n"
                                      "#define JOIN(p, q) p##q\n#endif\n"
                                      "#define PAUSE_NOW() __asm__ volatile(\"pause\")\n"}});
    const std::string text = "#include \"spin.h\"\nvoid wait_a_bit() { JOIN(PAUSE_, NOW)(); }\n";
    check_clang_finds_the_pause(tree.file("spin.cpp", text), tree.options());
  }

  SECTION("a header macro with a launch that the file never expands does not") {
    // Generated instantiation units: each file expands one macro of a header
    // whose other macros launch kernels.
    const HeaderTree tree("mpsaudit-cxx-gate-unused-macro",
                          {{"macros.cuh", "#define DEFINE_SCALE(n) void scale_##n(float *x) { x[0] *= n; }\n"
                                          "#define LAUNCH_ALL(kernel, x) kernel<<<1, 32>>>(x)\n"
                                          "#define SHARED_TILE __shared__ float tile[32]\n"}});
    const std::string text = "#include \"macros.cuh\"\n"
                             "DEFINE_SCALE(8)\n";
    const SourceFile input = tree.file("scale_8.cu", text);
    check_gate_keeps_clang_away(input, tree.options());

    const auto [launching, launching_runs] =
        extract_counting(tree.file("launch.cu", "#include \"macros.cuh\"\n__global__ void k(float *x);\n"
                                                "void run(float *x) { LAUNCH_ALL(k, x); }\n"),
                         tree.options(), CxxParseMode::Auto);
    CHECK(launching_runs == 1);
  }

  SECTION("assembly inside a header's own function does not") {
    const HeaderTree tree("mpsaudit-cxx-gate-header-function",
                          {{"spin.h", "inline void cpu_pause() { asm volatile(\"pause\"); }\n"
                                      "#define SPIN_LIMIT 64\n"}});
    const std::string text = "#include \"spin.h\"\n"
                             "void wait_a_bit() { for (int i = 0; i < SPIN_LIMIT; ++i) cpu_pause(); }\n";
    const SourceFile input = tree.file("spin.cpp", text);
    check_gate_keeps_clang_away(input, tree.options());
  }

  SECTION("a computed include goes to clang") {
    const std::string text = "#define HEADER \"kernels.cuh\"\n#include HEADER\nvoid f() {}\n";
    const auto [facts, runs] = extract_counting(source("computed.cpp", text), {}, CxxParseMode::Auto);
    CHECK(runs == 1);
  }
}

TEST_CASE("clang reads templates as written and never instantiates their bodies", "[cxx][gate]") {
  // The launches and the host call would make clang instantiate `scale` and
  // `blocks_for` for two types each; the model reads the templates themselves.
  const std::string text =
      "template <typename T> __global__ void scale(T *x, T by) {\n"
      "  __shared__ T tile[32];\n"
      "  tile[threadIdx.x] = x[threadIdx.x] * by;\n"
      "  __syncthreads();\n"
      "  x[threadIdx.x] = tile[threadIdx.x];\n"
      "}\n"
      "template <typename T> int blocks_for(T n) { return static_cast<int>(n / 256) + 1; }\n"
      "void run(float *f, double *d) {\n"
      "  scale<float><<<blocks_for(32), 32>>>(f, 2.f);\n"
      "  scale<double><<<blocks_for(32.0), 32>>>(d, 2.0);\n"
      "}\n";
  const std::uint64_t dropped_before = cxx::dropped_template_instantiations();
  const auto [facts, runs] = extract_counting(source("scale.cu", text), {}, CxxParseMode::Ast);
  CHECK(runs == 1);
  CHECK(cxx::dropped_template_instantiations() - dropped_before == 4);
  CHECK(facts.mode == "ast");
  const Fact *kernel = find_fact(facts, "cuda-kernel", "scale");
  REQUIRE(kernel != nullptr);
  CHECK(attribute(kernel, "origin") == "ast");
  CHECK(attribute(kernel, "template") == "true");
  CHECK(attribute(kernel, "shared_memory") == "1");
  CHECK(attribute(kernel, "barriers") == "1");
  CHECK(ast_launch_lines(facts) == std::vector<std::uint32_t>{9, 10});
}

TEST_CASE("a host body that pastes a macro name is parsed when the name may launch", "[cxx][gate]") {
  const std::string text = "#define LAUNCH_8(x) twice<<<1, 32>>>(x)\n"
                           "#define LAUNCH(n, x) LAUNCH_##n(x)\n"
                           "#define GLUE(a, b) a##b\n"
                           "#define COUNT_8 8\n"
                           "#define COUNT(n) COUNT_##n\n"
                           "#define SIZE_1_2 3\n"
                           "#define SIZE(a, b) SIZE_##a##_##b\n"
                           "__global__ void twice(float *x) { x[0] *= 2.f; }\n"
                           "void run(float *x) { LAUNCH(8, x); }\n"
                           "void glued(float *x) { GLUE(LAUNCH_, 8)(x); }\n"
                           "int count() { return COUNT(8); }\n"
                           "int size() { return SIZE(1, 2); }\n";
  const std::uint64_t skipped_before = cxx::skipped_function_bodies();
  const auto [facts, runs] = extract_counting(source("pasted.cu", text), {}, CxxParseMode::Auto);
  CHECK(runs == 1);
  // count and size: COUNT_ and SIZE_ name only macros without a launch (the
  // inner pastes of SIZE's chain belong to it).
  CHECK(cxx::skipped_function_bodies() - skipped_before == 2);
  CHECK(ast_launch_lines(facts) == std::vector<std::uint32_t>{9, 10});
}

TEST_CASE("clang skips the function bodies the model cannot read", "[cxx][gate]") {
  // Host bodies without kernel evidence are skipped; a kernel, a host body
  // with a launch and one whose launch hides in a macro are parsed.
  const std::string text =
      "#define LAUNCH_ON(kernel, x) kernel<<<1, 32>>>(x)\n"
      "#define CHECKED(call) call\n"
      "__global__ void twice(float *x) {\n"
      "  __shared__ float tile[32];\n"
      "  double scale = 2.0;\n"
      "  tile[threadIdx.x] = x[threadIdx.x] * scale;\n"
      "  x[threadIdx.x] = tile[threadIdx.x];\n"
      "}\n"
      "int pick_blocks(int n) { double d = n / 256.0; return static_cast<int>(d) + 1; }\n"
      "void run(float *x) { twice<<<pick_blocks(32), 32>>>(x); }\n"
      "void run_hidden(float *x) { CHECKED(LAUNCH_ON(twice, x)); }\n"
      "struct Config {\n"
      "  int blocks() const { return 4; }\n"
      "};\n"
      "__global__ void one_line(float *x) { x[0] = 1.f; } int next(int n) { double d = n; return (int)d; }\n";
  const std::uint64_t skipped_before = cxx::skipped_function_bodies();
  const auto [facts, runs] = extract_counting(source("twice.cu", text), {}, CxxParseMode::Auto);
  CHECK(runs == 1);
  CHECK(cxx::skipped_function_bodies() - skipped_before == 2); // pick_blocks, Config::blocks
  CHECK(facts.mode == "ast");
  const Fact *kernel = find_fact(facts, "cuda-kernel", "twice");
  REQUIRE(kernel != nullptr);
  CHECK(attribute(kernel, "shared_memory") == "1");
  CHECK(attribute(kernel, "has_double") == "true");
  CHECK(ast_launch_lines(facts) == std::vector<std::uint32_t>{10, 11});
  // `next` shares the kernel's line, whose evidence is counted per line.
  CHECK(attribute(find_fact(facts, "cuda-kernel", "one_line"), "has_double") == "true");

  const std::uint64_t skipped_forced = cxx::skipped_function_bodies();
  const FileFacts every_body = extract("twice.cu", text, CxxParseMode::Ast);
  CHECK(cxx::skipped_function_bodies() == skipped_forced);
  CHECK(describe(facts) == describe(every_body));
}
