// The cross-file pass: for each op registered for CUDA, which fallbacks exist
// anywhere in the repository.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cxx_test_util.h"
#include "frontend/cxx/registration_pass.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

namespace {

Fact python_fact(const std::string &kind, const std::string &name, std::uint32_t line,
                 Guard guard = Guard::None, const std::string &scope = "") {
  Fact fact;
  fact.kind = kind;
  fact.name = name;
  fact.span = Span{line, 1, line, 1};
  fact.guard = guard;
  fact.scope = scope;
  return fact;
}

} // namespace

TEST_CASE("CUDA registrations learn about fallbacks in other files", "[cxx][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("csrc/ops_cuda.cu", "__global__ void k(float *x) {}\n"
                                               "void a_cuda(); void b_cuda(); void c_cuda(); void d_cuda();\n"
                                               "TORCH_LIBRARY_IMPL(myops, CUDA, m) {\n"
                                               "  m.impl(\"a\", &a_cuda);\n"
                                               "  m.impl(\"b\", &b_cuda);\n"
                                               "  m.impl(\"c\", TORCH_FN(c_cuda));\n"
                                               "  m.impl(\"d\", &d_cuda);\n"
                                               "  m.impl(\"e\", &e_cuda);\n"
                                               "}\n"
                                               "void launch() { k<<<1, 1>>>(nullptr); }\n"));
  files.push_back(cxx_file("csrc/ops_cpu.cpp", "TORCH_LIBRARY_IMPL(myops, CPU, m) {\n"
                                               "  m.impl(\"a\", &a_cpu);\n"
                                               "}\n"));
  files.push_back(cxx_file("csrc/ops.cpp", "TORCH_LIBRARY(myops, m) {\n"
                                           "  m.def(\"a(Tensor x) -> Tensor\");\n"
                                           "  m.def(\"b(Tensor x) -> Tensor\", &b_generic);\n"
                                           "}\n"));
  files.push_back(cxx_file("mps/ops.mm", "TORCH_LIBRARY_IMPL(myops, MPS, m) {\n"
                                         "  m.impl(\"a\", &a_mps);\n"
                                         "}\n"));
  files.push_back(cxx_file("csrc/launch_more.cu", "void again() { k<<<2, 2>>>(nullptr); }\n"));
  ProjectFile python;
  python.path = "myops/reference.py";
  python.kind = FileKind::Python;
  python.facts.facts.push_back(python_fact("function-def", "c", 3));
  python.facts.facts.push_back(python_fact("function-def", "d", 9, Guard::None, "Module"));
  // e() only forwards to the compiled op: a wrapper, not a fallback.
  python.facts.facts.push_back(python_fact("function-def", "e", 12));
  python.facts.facts.push_back(python_fact("call", "torch.ops.myops.e", 13, Guard::None, "e"));
  files.push_back(python);

  // Before the pass each file only knows itself.
  CHECK(attribute(registration(files[0], "myops::a"), "critical_path") == "true");

  resolve_op_registrations(files);

  const Fact &a = registration(files[0], "myops::a");
  CHECK(attribute(a, "has_cpu_impl") == "true");
  CHECK(attribute(a, "cpu_impl_at") == "csrc/ops_cpu.cpp:2");
  CHECK(attribute(a, "has_mps_impl") == "true");
  CHECK(attribute(a, "fallbacks") == "cpu,mps");
  CHECK(attribute(a, "critical_path") == "false");

  const Fact &b = registration(files[0], "myops::b");
  CHECK(attribute(b, "has_composite_impl") == "true");
  CHECK(attribute(b, "has_cpu_impl") == "false");
  CHECK(attribute(b, "critical_path") == "false");

  const Fact &c = registration(files[0], "myops::c");
  CHECK(attribute(c, "function") == "c_cuda");
  CHECK(attribute(c, "has_python_fallback") == "true");
  CHECK(attribute(c, "python_fallback_at") == "def c at myops/reference.py:3");

  // A method named like the op is not a module-level fallback.
  const Fact &d = registration(files[0], "myops::d");
  CHECK(attribute(d, "has_python_fallback") == "false");
  CHECK(attribute(d, "fallbacks") == "none");
  CHECK(attribute(d, "critical_path") == "true");

  const Fact &e = registration(files[0], "myops::e");
  CHECK(attribute(e, "has_python_fallback") == "false");
  CHECK(attribute(e, "critical_path") == "true");

  // Launches are counted across files.
  for (const auto &fact : files[0].facts.facts)
    if (fact.kind == "cuda-kernel")
      CHECK(attribute(fact, "launches") == "2");
}

TEST_CASE("a guarded import of the extension is a Python fallback", "[cxx][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(cxx_file("ext.cu", "TORCH_LIBRARY_IMPL(fastops, CUDA, m) {\n"
                                     "  m.impl(\"gelu\", &gelu_cuda);\n"
                                     "}\n"));
  ProjectFile python;
  python.path = "fastops/__init__.py";
  python.kind = FileKind::Python;
  python.facts.facts.push_back(python_fact("import", "fastops._C", 2, Guard::ImportFallback));
  python.facts.facts.push_back(python_fact("import", "othermod._C", 5, Guard::ImportFallback));
  files.push_back(python);
  resolve_op_registrations(files);
  const Fact &gelu = registration(files[0], "fastops::gelu");
  CHECK(attribute(gelu, "has_python_fallback") == "true");
  CHECK(attribute(gelu, "python_fallback_at") == "fastops._C at fastops/__init__.py:2");
  CHECK(attribute(gelu, "critical_path") == "false");
}
