#include <catch2/catch.hpp>

#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;

TEST_CASE("setup.py: requirements, extensions and their CUDA guard", "[manifest][setup-py]") {
  const FileFacts facts = extract_setup_py(R"py(import os
import sys
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME

requirements = ["numpy>=1.24", "einops"]
if sys.platform == "linux":
    requirements.append("triton")

ext_modules = []
if CUDA_HOME is not None and os.getenv("FORCE_CPU") != "1":
    ext_modules.append(
        CUDAExtension("demo._C", sources=["csrc/ops.cpp", "csrc/ops_kernel.cu"]))
else:
    ext_modules.append(CppExtension("demo._C", ["csrc/ops.cpp"]))

setup(
    name="demo",
    install_requires=requirements + ["flash-attn==2.5.0"],
    extras_require={"cuda": ["xformers"], "dev": ["pytest"]},
    setup_requires=["torch"],
    ext_modules=ext_modules,
    cmdclass={"build_ext": BuildExtension},
)
)py",
                                           "setup.py");
  CHECK(facts.diagnostics.empty());
  const Fact &cuda = required_fact(facts, "cxx-extension", "CUDAExtension");
  check_position(cuda, 13, 9);
  CHECK(cuda.guard == Guard::CudaCheck);
  check_attributes(cuda, {{"ext_name", "demo._C"},
                          {"sources", "csrc/ops.cpp,csrc/ops_kernel.cu"},
                          {"cuda_sources", "csrc/ops_kernel.cu"},
                          {"cpu_fallback", "true"}});

  const Fact &cpu = required_fact(facts, "cxx-extension", "CppExtension");
  CHECK(cpu.guard == Guard::None);
  CHECK(attribute_or_empty(cpu, "sources") == "csrc/ops.cpp");

  const Fact &numpy = required_fact(facts, "dependency", "numpy");
  check_position(numpy, 6, 18);
  CHECK(attribute_or_empty(numpy, "source") == "setup-py");
  const Fact &triton = required_fact(facts, "dependency", "triton");
  CHECK(triton.guard == Guard::PlatformCheck);
  CHECK(triton.span.line == 8);
  CHECK(fact_of(facts, "dependency", "flash-attn"));
  const Fact &xformers = required_fact(facts, "dependency", "xformers");
  CHECK(xformers.guard == Guard::OptionalExtra);
  CHECK(attribute_or_empty(xformers, "extra") == "cuda");
  CHECK(attribute_or_empty(*fact_of(facts, "dependency", "torch"), "source") == "build-system");
  CHECK(fact_of(facts, "build", "cmdclass"));
}

TEST_CASE("setup.py without a CUDA guard", "[manifest][setup-py]") {
  const FileFacts facts = extract_setup_py(R"py(from setuptools import setup
from torch.utils import cpp_extension
setup(ext_modules=[cpp_extension.CUDAExtension(name="k", sources=["k.cu"])],
      cmdclass={"build_ext": cpp_extension.BuildExtension})
)py",
                                           "setup.py");
  const Fact &cuda = required_fact(facts, "cxx-extension", "CUDAExtension");
  CHECK(cuda.guard == Guard::None);
  check_attributes(cuda, {{"cpu_fallback", "false"}, {"ext_name", "k"}});
}

TEST_CASE("setup.py with syntax errors is diagnosed and still read", "[manifest][setup-py][malformed]") {
  const FileFacts facts = extract_setup_py(R"py(from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
def broken(:
    pass
setup(install_requires=["triton"], ext_modules=[CUDAExtension("k", ["k.cu"])])
)py",
                                           "setup.py");
  const Diagnostic *error = diagnostic_with_code(facts, "parse-error");
  REQUIRE(error);
  CHECK(error->path == "setup.py");
  CHECK(error->line == 3);
  CHECK(fact_of(facts, "cxx-extension", "CUDAExtension"));
  CHECK(fact_of(facts, "dependency", "triton"));
}

namespace {

// optional attribute of the build-source facts named `name`, in file order.
std::vector<std::string> optional_flags(const FileFacts &facts, std::string_view name) {
  std::vector<std::string> flags;
  for (const Fact *fact : facts_of(facts, "build-source", name))
    flags.push_back(attribute_or_empty(*fact, "optional"));
  return flags;
}

} // namespace

TEST_CASE("setup.py: sources built only when CUDA is there are optional",
          "[manifest][setup-py][cpu-fallback]") {
  SECTION("an extension class picked under the test, CUDA sources added there") {
    const FileFacts facts = extract_setup_py(R"py(import glob, os
import torch
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension

def get_extensions():
    src = os.path.join("lib", "csrc")
    sources = glob.glob(os.path.join(src, "*.cpp"))
    kernels = glob.glob(os.path.join(src, "**", "*.cu"), recursive=True)
    extension = CppExtension
    macros = []
    if (torch.cuda.is_available() and CUDA_HOME is not None) or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension
        sources += kernels
        macros += [("WITH_CUDA", None)]
    sources = [os.path.join(src, s) for s in sources]
    return [extension("lib._C", sources, define_macros=macros)]
)py",
                                             "setup.py");
    CHECK(optional_flags(facts, "*.cu") == std::vector<std::string>{"true"});
    CHECK(optional_flags(facts, "*.cpp") == std::vector<std::string>{"false"});
    const Fact &cuda = required_fact(facts, "build-source", "*.cu");
    CHECK(cuda.span.line == 8);
    check_attributes(cuda, {{"glob", "true"}, {"build", "setup.py"}});
  }
  SECTION("CUDAExtension under the test, CppExtension otherwise") {
    const FileFacts facts =
        extract_setup_py(R"py(from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension
if CUDA_HOME is not None:
    ext = CUDAExtension("ops._C", ["csrc/ops.cpp", "csrc/ops_kernel.cu"])
else:
    ext = CppExtension("ops._C", ["csrc/ops.cpp"])
)py",
                         "setup.py");
    CHECK(optional_flags(facts, "csrc/ops_kernel.cu") == std::vector<std::string>{"true"});
    // Also built without CUDA: the CPU build needs it.
    CHECK(optional_flags(facts, "csrc/ops.cpp") == std::vector<std::string>{"true", "false"});
  }
  SECTION("no CPU extension: nothing is optional") {
    const FileFacts facts = extract_setup_py(R"py(import torch
from torch.utils.cpp_extension import CppExtension, CUDAExtension
ext_modules = []
if torch.cuda.is_available():
    ext_modules.append(CUDAExtension("ops._C", ["csrc/ops.cpp", "csrc/ops_kernel.cu"]))
)py",
                                             "setup.py");
    CHECK(optional_flags(facts, "csrc/ops_kernel.cu") == std::vector<std::string>{"false"});
  }
  SECTION("a CUDA source also used outside the test is required") {
    const FileFacts facts = extract_setup_py(R"py(import torch
from torch.utils.cpp_extension import CppExtension, CUDAExtension
kernels = ["csrc/ops_kernel.cu"]
if torch.cuda.is_available():
    ext = CUDAExtension("ops._C", ["csrc/ops.cpp"] + kernels)
else:
    ext = CppExtension("ops._C", ["csrc/ops.cpp"])
always = CUDAExtension("other._C", kernels)
)py",
                                             "setup.py");
    CHECK(optional_flags(facts, "csrc/ops_kernel.cu") == std::vector<std::string>{"false"});
  }
  SECTION("an unconditional CUDAExtension") {
    const FileFacts facts = extract_setup_py(R"py(from torch.utils.cpp_extension import CUDAExtension
ext = CUDAExtension("ops._C", ["csrc/ops.cpp", "csrc/ops_kernel.cu"])
)py",
                                             "setup.py");
    CHECK(optional_flags(facts, "csrc/ops_kernel.cu") == std::vector<std::string>{"false"});
  }
}

TEST_CASE("setup.py: an extension class held by a variable builds one extension of each class it may hold",
          "[manifest][setup-py]") {
  const FileFacts facts = extract_setup_py(R"py(import torch
from setuptools import setup
from torch.utils.cpp_extension import CppExtension, CUDAExtension

extension = CppExtension
sources = ["csrc/ext.cpp"]
if torch.cuda.is_available():
    extension = CUDAExtension
    sources += ["csrc/kernel.cu"]
builder = extension
setup(ext_modules=[builder("pkg._C", sources)])
)py",
                                           "setup.py");
  const Fact *cuda = fact_of(facts, "cxx-extension", "CUDAExtension");
  const Fact *cpu = fact_of(facts, "cxx-extension", "CppExtension");
  REQUIRE(cuda);
  REQUIRE(cpu);
  CHECK(cuda->span.line == 11);
  CHECK(cpu->span.line == 11);
  CHECK(attribute_or_empty(*cuda, "ext_name") == "pkg._C");
  CHECK(attribute_or_empty(*cpu, "ext_name") == "pkg._C");
  CHECK(attribute_or_empty(*cuda, "cpu_fallback") == "true");
}

TEST_CASE("setup.py: a comment inside an extension's arguments is no argument", "[manifest][setup-py]") {
  const FileFacts facts = extract_setup_py(R"py(from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
setup(ext_modules=[CUDAExtension(  # the kernels
    "pkg._C",
    ["csrc/kernel.cu"],
)])
)py",
                                           "setup.py");
  const Fact &cuda = required_fact(facts, "cxx-extension", "CUDAExtension");
  check_attributes(cuda, {{"ext_name", "pkg._C"}, {"cuda_sources", "csrc/kernel.cu"}});
}

TEST_CASE("setup.py: an extension named at run time is shown as written, and matches no import",
          "[manifest][setup-py]") {
  const FileFacts facts = extract_setup_py(R"py(from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
arch = 80
setup(ext_modules=[CUDAExtension(name=f"pkg._{arch}_C", sources=["k.cu"])])
)py",
                                           "setup.py");
  const Fact &cuda = required_fact(facts, "cxx-extension", "CUDAExtension");
  CHECK(attribute_or_empty(cuda, "ext_name").empty());
  CHECK(attribute_or_empty(cuda, "extension") == "f\"pkg._{arch}_C\"");
}
