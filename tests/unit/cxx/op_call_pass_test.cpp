// The cpu-dispatched-op-calls pass: Python calls of compiled ops whose C++
// entry sends non-CUDA tensors to CPU code.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "cxx_test_util.h"
#include "frontend/cxx/op_call_pass.h"

using namespace mpsaudit;
using namespace mpsaudit::test;
using mpsaudit::testing::python_file;

namespace {

Fact call(const std::string &name, std::uint32_t line, Guard guard = Guard::None,
          const std::string &first_argument = "x") {
  Fact fact;
  fact.kind = "call";
  fact.name = name;
  fact.span = Span{line, 5, line, 40};
  fact.guard = guard;
  fact.scope = "Layer.forward";
  if (!first_argument.empty()) {
    Argument argument;
    argument.text = first_argument;
    fact.arguments.push_back(argument);
  }
  return fact;
}

std::vector<const Fact *> op_calls(const ProjectFile &file) {
  return facts_of(file.facts, std::string(kCpuDispatchedOpCallFact));
}

const char *const kDispatchingHeader = "#pragma once\n"
                                       "at::Tensor pool_cpu(const at::Tensor &x);\n"
                                       "at::Tensor pool_cuda(const at::Tensor &x);\n"
                                       "inline at::Tensor pool(const at::Tensor &x) {\n"
                                       "  if (x.is_cuda()) {\n"
                                       "    return pool_cuda(x);\n"
                                       "  }\n"
                                       "  return pool_cpu(x);\n"
                                       "}\n"
                                       "std::string version() {\n"
                                       "#if defined(WITH_CUDA)\n"
                                       "  return cuda_version();\n"
                                       "#else\n"
                                       "  return \"none\";\n"
                                       "#endif\n"
                                       "}\n"
                                       "inline at::Tensor fused(const at::Tensor &x) {\n"
                                       "  TORCH_CHECK(x.is_cuda(), \"fused needs CUDA\");\n"
                                       "  return fused_cuda(x);\n"
                                       "}\n";

} // namespace

TEST_CASE("calls of an op whose C++ entry has a CPU arm are reported at the call", "[cxx][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/pool.h", kDispatchingHeader));
  files.push_back(cxx_file("csrc/bind.cpp", "TORCH_LIBRARY(boxes, m) {\n"
                                            "  m.def(\"pool\", &pool);\n"
                                            "  m.def(\"fused\", &fused);\n"
                                            "  m.def(\"version\", &version);\n"
                                            "}\n"
                                            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                                            "  m.def(\"pool_ext\", &pool, \"pooling\");\n"
                                            "}\n"));
  files.push_back(
      python_file("boxes/layers.py", {call("torch.ops.boxes.pool", 10), call("boxes._C.pool_ext", 12),
                                      // Another namespace's op of the same name is another op.
                                      call("torch.ops.other.pool", 14),
                                      // No CPU arm: a different finding (MPS840 or the dispatch's own).
                                      call("torch.ops.boxes.fused", 16),
                                      // Only runs with CUDA.
                                      call("torch.ops.boxes.pool", 18, Guard::CudaCheck),
                                      // Already moves its input to the CPU.
                                      call("torch.ops.boxes.pool", 20, Guard::None, "x.cpu()"),
                                      // torch's own bindings are not the repository's ops.
                                      call("torch._C.pool", 22),
                                      // Decided by #if alone: no tensor is routed.
                                      call("torch.ops.boxes.version", 24),
                                      // No argument, no tensor.
                                      call("torch.ops.boxes.pool", 26, Guard::None, "")}));

  find_cpu_dispatched_op_calls(files);

  const auto found = op_calls(files[2]);
  REQUIRE(found.size() == 2);
  CHECK(found[0]->name == "torch.ops.boxes.pool");
  CHECK(found[0]->span.line == 10);
  CHECK(found[0]->scope == "Layer.forward");
  CHECK(*found[0]->attribute("function") == "pool");
  CHECK(*found[0]->attribute("dispatch_at") == "csrc/pool.h:4");
  CHECK(*found[0]->attribute("cpu_target") == "`pool_cpu`");
  CHECK(found[1]->name == "boxes._C.pool_ext");
  CHECK(found[1]->span.line == 12);
  CHECK(*found[1]->attribute("function") == "pool");
}

TEST_CASE("an op name bound to a function without a CPU arm anywhere is not reported", "[cxx][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/pool.h", kDispatchingHeader));
  // Two extensions bind `forward`: one to the dispatching pool, one to the
  // CUDA-only fused. A `_C.forward` call may reach either.
  files.push_back(cxx_file("csrc/a.cpp", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                                         "  m.def(\"forward\", &pool);\n"
                                         "}\n"));
  files.push_back(cxx_file("csrc/b.cpp", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                                         "  m.def(\"forward\", &fused);\n"
                                         "}\n"));
  files.push_back(python_file("pkg/layer.py", {call("pkg._C.forward", 5)}));

  find_cpu_dispatched_op_calls(files);

  CHECK(op_calls(files[3]).empty());
}

TEST_CASE("the op-call pass keeps compiled-op calls, registrations and CPU-arm dispatches", "[cxx][pass]") {
  CHECK(op_call_retention(call("torch.ops.boxes.pool", 1)) == FactRetention::Keep);
  CHECK(op_call_retention(call("torch.relu", 1)) == FactRetention::Drop);
  const ProjectFile header = cxx_file("csrc/pool.h", kDispatchingHeader);
  std::size_t kept_dispatches = 0;
  for (const Fact &fact : header.facts.facts)
    if (fact.kind == "device-dispatch" && op_call_retention(fact) == FactRetention::Keep)
      ++kept_dispatches;
  CHECK(kept_dispatches == 1);
}
