// Device dispatch: host functions that send CUDA tensors (or a CUDA build) to
// CUDA code and everything else to a CPU implementation. Every case runs
// through the AST path and the raw-lexer path, which must agree (the
// analysis reads the raw tokens: clang drops the inactive #if arm).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cxx_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

namespace {

const Fact *fact_on_line(const FileFacts &facts, const std::string &kind, std::uint32_t line) {
  for (const auto &fact : facts.facts)
    if (fact.kind == kind && fact.span.line == line)
      return &fact;
  return nullptr;
}

// Runs `check` on the facts of both paths.
template <typename Check> void in_both_modes(const std::string &path, const std::string &text, Check check) {
  for (const CxxParseMode mode : {CxxParseMode::Auto, CxxParseMode::Lexical}) {
    INFO((mode == CxxParseMode::Auto ? "AST mode" : "lexical mode"));
    check(extract(path, text, mode));
  }
}

// The pattern of many research extensions: a runtime test on the tensor, the
// CUDA call inside #if WITH_CUDA, and the CPU implementation after the if.
const char *const kIfWithPreprocessorArm = R"cpp(#pragma once
#include <torch/types.h>

at::Tensor roi_forward_cpu(const at::Tensor &input, const at::Tensor &rois);
#if defined(WITH_CUDA) || defined(WITH_HIP)
at::Tensor roi_forward_cuda(const at::Tensor &input, const at::Tensor &rois);
#endif

inline at::Tensor roi_forward(const at::Tensor &input, const at::Tensor &rois) {
  if (input.is_cuda()) {
#if defined(WITH_CUDA) || defined(WITH_HIP)
    TORCH_CHECK(rois.is_cuda(), "rois must be on the GPU");
    return roi_forward_cuda(input, rois);
#else
    AT_ERROR("not compiled with GPU support");
#endif
  }
  return roi_forward_cpu(input, rois);
}
)cpp";

} // namespace

TEST_CASE("an is_cuda() test with a CPU return after it is a dispatch with a CPU fallback",
          "[cxx][dispatch]") {
  in_both_modes("csrc/roi.h", kIfWithPreprocessorArm, [](const FileFacts &facts) {
    const Fact *dispatch = find_fact(facts, "device-dispatch", "roi_forward");
    REQUIRE(dispatch);
    CHECK(dispatch->span.line == 9);
    CHECK(attribute(dispatch, "via") == "if");
    CHECK(attribute(dispatch, "test") == ".is_cuda()");
    CHECK(attribute(dispatch, "test_line") == "10");
    CHECK(attribute(dispatch, "runtime") == "true");
    CHECK(attribute(dispatch, "cpu_fallback") == "true");
    CHECK(attribute(dispatch, "cuda_functions") == "roi_forward_cuda");
    CHECK(attribute(dispatch, "cpu_functions") == "roi_forward_cpu");
    CHECK(facts_of(facts, "device-dispatch").size() == 1); // the inner #if is part of the CUDA arm
    // The test and the CUDA arm route MPS tensors to the CPU: guarded.
    const Fact *test = fact_on_line(facts, "aten-cuda", 10);
    REQUIRE(test);
    CHECK(test->guard == Guard::CpuFallback);
    const Fact *check_in_arm = fact_on_line(facts, "aten-cuda", 12);
    REQUIRE(check_in_arm);
    CHECK(check_in_arm->guard == Guard::CpuFallback);
  });
}

TEST_CASE("a CPU alternative that only raises is no fallback", "[cxx][dispatch]") {
  const std::string text = R"cpp(#include <torch/types.h>
int deform_forward_cuda(at::Tensor input);
inline int deform_forward(at::Tensor input) {
  if (input.is_cuda()) {
#ifdef WITH_CUDA
    return deform_forward_cuda(input);
#else
    AT_ERROR("not compiled with GPU support");
#endif
  }
  AT_ERROR("not implemented on the CPU");
}
inline int checked_forward(at::Tensor input) {
  if (!input.is_cuda()) {
    TORCH_CHECK(false, "CUDA tensors only");
  }
  return deform_forward_cuda(input);
}
inline int thrown_forward(at::Tensor input) {
  if (input.device().is_cuda())
    return deform_forward_cuda(input);
  throw std::runtime_error("no CPU kernel");
}
)cpp";
  in_both_modes("csrc/deform.h", text, [](const FileFacts &facts) {
    for (const char *name : {"deform_forward", "checked_forward", "thrown_forward"}) {
      INFO(name);
      const Fact *dispatch = find_fact(facts, "device-dispatch", name);
      REQUIRE(dispatch);
      CHECK(attribute(dispatch, "cpu_fallback") == "false");
      CHECK(attribute(dispatch, "cuda_functions") == "deform_forward_cuda");
    }
    // Nothing is guarded: `.is_cuda()` here does reject MPS tensors.
    for (const Fact *fact : facts_of(facts, "aten-cuda"))
      CHECK(fact->guard == Guard::None);
  });
}

TEST_CASE("else branches, negated tests, device types and the ternary operator", "[cxx][dispatch]") {
  const std::string text = R"cpp(#include <torch/types.h>
at::Tensor a_cuda(at::Tensor x); at::Tensor a_cpu(at::Tensor x);
at::Tensor with_else(at::Tensor x) {
  if (x.type().is_cuda()) {
    return a_cuda(x);
  } else {
    return a_cpu(x);
  }
}
at::Tensor negated(at::Tensor x) {
  if (!x.is_cuda())
    return a_cpu(x);
  return a_cuda(x);
}
at::Tensor by_type(at::Tensor x) {
  if (x.device().type() == at::kCUDA) {
    return a_cuda(x);
  }
  return a_cpu(x);
}
at::Tensor by_type_negated(at::Tensor x) {
  if (x.device().type() != c10::DeviceType::CUDA)
    return a_cpu(x);
  return a_cuda(x);
}
at::Tensor ternary(at::Tensor x) {
  return x.is_cuda() ? a_cuda(x) : a_cpu(x);
}
void both(at::Tensor x, at::Tensor y) {
  if (x.is_cuda() && y.is_cuda()) {
    a_cuda(x);
    return;
  }
  a_cpu(x);
}
)cpp";
  in_both_modes("csrc/ops.cpp", text, [](const FileFacts &facts) {
    for (const char *name : {"with_else", "negated", "by_type", "by_type_negated", "ternary", "both"}) {
      INFO(name);
      const Fact *dispatch = find_fact(facts, "device-dispatch", name);
      REQUIRE(dispatch);
      CHECK(attribute(dispatch, "cpu_fallback") == "true");
      CHECK(attribute(dispatch, "cuda_functions") == "a_cuda");
      CHECK(attribute(dispatch, "cpu_functions") == "a_cpu");
      CHECK(attribute(dispatch, "runtime") == "true");
    }
    CHECK(attribute(find_fact(facts, "device-dispatch", "ternary"), "via") == "ternary");
    CHECK(attribute(find_fact(facts, "device-dispatch", "by_type"), "test") == "kCUDA");
    // `== at::kCUDA` in a dispatch with a CPU arm is a test, not a hard-coded device.
    const Fact *constant = fact_on_line(facts, "aten-cuda", 16);
    REQUIRE(constant);
    CHECK(constant->guard == Guard::CpuFallback);
  });
}

TEST_CASE("#if WITH_CUDA / #else in a function is a build-time dispatch", "[cxx][dispatch]") {
  const std::string text = R"cpp(#include <string>
int cudart_version();
std::string describe_cuda() {
#if defined(WITH_CUDA)
  return "CUDA " + std::to_string(cudart_version());
#else
  return std::string("not available");
#endif
}
bool compiled_with_cuda() {
#ifdef WITH_CUDA
  return true;
#else
  return false;
#endif
}
int launch_or_not(int n) {
#ifndef __CUDACC__
  return n;
#else
  return cudart_version() + n;
#endif
}
int version_pick(int n) {
#if CUDA_VERSION >= 11000
  return cudart_version();
#else
  return n;
#endif
}
std::string gpu_name() {
#if defined(WITH_CUDA) || defined(WITH_HIP)
  std::string name;
#if defined(WITH_CUDA)
  name = "CUDA ";
#else
  name = "HIP ";
#endif
  return name + std::to_string(cudart_version());
#else
  return "none";
#endif
}
)cpp";
  in_both_modes("csrc/info.cpp", text, [](const FileFacts &facts) {
    const Fact *describe = find_fact(facts, "device-dispatch", "describe_cuda");
    REQUIRE(describe);
    CHECK(attribute(describe, "via") == "preprocessor");
    CHECK(attribute(describe, "runtime") == "false");
    CHECK(attribute(describe, "test") == "#if defined(WITH_CUDA)");
    CHECK(attribute(describe, "cpu_fallback") == "true");
    CHECK(attribute(describe, "cuda_functions") == "cudart_version");
    const Fact *compiled = find_fact(facts, "device-dispatch", "compiled_with_cuda");
    REQUIRE(compiled);
    CHECK(attribute(compiled, "cpu_fallback") == "true");
    CHECK(attribute(compiled, "cuda_functions").empty());
    const Fact *negative = find_fact(facts, "device-dispatch", "launch_or_not");
    REQUIRE(negative);
    CHECK(attribute(negative, "cuda_functions") == "cudart_version");
    CHECK(attribute(negative, "cpu_fallback") == "true");
    // A CUDA version test picks between two CUDA variants: no dispatch.
    CHECK_FALSE(find_fact(facts, "device-dispatch", "version_pick"));
    // CUDA or HIP inside the GPU arm is part of that arm, not a dispatch of its own.
    const Fact *nested = find_fact(facts, "device-dispatch", "gpu_name");
    REQUIRE(nested);
    CHECK(attribute(nested, "cpu_fallback") == "true");
    CHECK(attribute(nested, "cuda_functions") == "cudart_version");
    CHECK(attribute(nested, "test") == "#if defined(WITH_CUDA) || defined(WITH_HIP)");
  });
}

TEST_CASE("device tests that are not dispatches", "[cxx][dispatch]") {
  const std::string text = R"cpp(#include <torch/types.h>
at::Tensor f_cuda(at::Tensor x);
at::Tensor checks_only(at::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  return f_cuda(x);
}
at::Tensor moves(at::Tensor x) {
  auto y = x.to(at::kCUDA);
  return f_cuda(y);
}
at::Tensor falls_through(at::Tensor x) {
  if (x.is_cuda()) {
    x = x.contiguous();
  }
  return f_cuda(x);
}
__global__ void k(float *x) {
#if __CUDA_ARCH__ >= 700
  x[0] = 1.f;
#else
  x[0] = 2.f;
#endif
}
)cpp";
  in_both_modes("csrc/notdispatch.cu", text, [](const FileFacts &facts) {
    CHECK(facts_of(facts, "device-dispatch").empty());
    for (const Fact *fact : facts_of(facts, "aten-cuda"))
      CHECK(fact->guard == Guard::None);
  });
}

TEST_CASE("function facts list what each function calls and launches", "[cxx][dispatch]") {
  const std::string text = R"cu(#include <ATen/cuda/CUDAContext.h>
namespace ops {
template <typename T>
__global__ void scale_kernel(T *x, int n) { x[threadIdx.x] *= T(2); }

__device__ float helper(float v) { return v; }

static int blocks_for(int n) { return (n + 255) / 256; }

at::Tensor scale_cuda(const at::Tensor &x) {
  auto y = x.clone();
  const int n = static_cast<int>(y.numel());
  AT_DISPATCH_FLOATING_TYPES(y.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t><<<blocks_for(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        y.data_ptr<scalar_t>(), n);
  });
  std::vector<int> unused;
  return y;
}

struct Launcher {
  Launcher(int n) : n_(n) {}
  void run(float *x) { scale_kernel<<<1, n_>>>(x, n_); }
  int n_;
};
} // namespace ops
TORCH_LIBRARY_IMPL(ops, CUDA, m) { m.impl("scale", &ops::scale_cuda); }
)cu";
  in_both_modes("csrc/scale.cu", text, [](const FileFacts &facts) {
    const Fact *kernel = find_fact(facts, "cxx-function", "scale_kernel");
    REQUIRE(kernel);
    CHECK(attribute(kernel, "device_code") == "true");
    CHECK(attribute(kernel, "body_end_line") == "4");
    CHECK(attribute(find_fact(facts, "cxx-function", "helper"), "device_code") == "true");
    const Fact *host = find_fact(facts, "cxx-function", "scale_cuda");
    REQUIRE(host);
    CHECK(attribute(host, "qualified_name") == "scale_cuda");
    CHECK(attribute(host, "device_code") == "false");
    CHECK(attribute(host, "calls") == "scale_kernel,blocks_for");
    CHECK(attribute(host, "body_end_line") == "19");
    CHECK(attribute(find_fact(facts, "cxx-function", "run"), "calls") == "scale_kernel");
    CHECK(find_fact(facts, "cxx-function", "Launcher"));
    // TORCH_LIBRARY_IMPL's block is a macro, not a function.
    CHECK_FALSE(find_fact(facts, "cxx-function", "TORCH_LIBRARY_IMPL"));
  });
}

TEST_CASE("files without CUDA get no function facts", "[cxx][dispatch]") {
  const FileFacts facts =
      extract("src/plain.cpp", "int twice(int x) { return helper(x) * 2; }\n", CxxParseMode::Lexical);
  CHECK(facts_of(facts, "cxx-function").empty());
}

TEST_CASE("malformed code never stops the dispatch analysis", "[cxx][dispatch]") {
  for (const char *text : {"inline at::Tensor f(at::Tensor x) {\n  if (x.is_cuda()) {\n    return g(x);\n",
                           "#if defined(WITH_CUDA)\nint f() {\n#else\nint f() { return 1; }\n",
                           "int f() {\n#endif\n#else\n return x.is_cuda() ? : ;\n}\n",
                           "void f() { if (x.is_cuda() ? a( : b) }\n", ") ) } { ( x.is_cuda() ? ? : : ;"}) {
    INFO(text);
    in_both_modes("csrc/bad.cpp", text, [](const FileFacts &facts) {
      for (const auto &diagnostic : facts.diagnostics)
        CHECK(diagnostic.code != "internal-error");
    });
  }
}
