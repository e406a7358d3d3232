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
  const Fact *cuda = fact_of(facts, "cxx-extension", "CUDAExtension");
  REQUIRE(cuda);
  CHECK(cuda->span.line == 13);
  CHECK(cuda->span.column == 9);
  CHECK(cuda->guard == Guard::CudaCheck);
  CHECK(attribute_or_empty(*cuda, "ext_name") == "demo._C");
  CHECK(attribute_or_empty(*cuda, "sources") == "csrc/ops.cpp,csrc/ops_kernel.cu");
  CHECK(attribute_or_empty(*cuda, "cuda_sources") == "csrc/ops_kernel.cu");
  CHECK(attribute_or_empty(*cuda, "cpu_fallback") == "true");

  const Fact *cpu = fact_of(facts, "cxx-extension", "CppExtension");
  REQUIRE(cpu);
  CHECK(cpu->guard == Guard::None);
  CHECK(attribute_or_empty(*cpu, "sources") == "csrc/ops.cpp");

  const Fact *numpy = fact_of(facts, "dependency", "numpy");
  REQUIRE(numpy);
  CHECK(numpy->span.line == 6);
  CHECK(numpy->span.column == 18);
  CHECK(attribute_or_empty(*numpy, "source") == "setup-py");
  const Fact *triton = fact_of(facts, "dependency", "triton");
  REQUIRE(triton);
  CHECK(triton->guard == Guard::PlatformCheck);
  CHECK(triton->span.line == 8);
  CHECK(fact_of(facts, "dependency", "flash-attn"));
  const Fact *xformers = fact_of(facts, "dependency", "xformers");
  REQUIRE(xformers);
  CHECK(xformers->guard == Guard::OptionalExtra);
  CHECK(attribute_or_empty(*xformers, "extra") == "cuda");
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
  const Fact *cuda = fact_of(facts, "cxx-extension", "CUDAExtension");
  REQUIRE(cuda);
  CHECK(cuda->guard == Guard::None);
  CHECK(attribute_or_empty(*cuda, "cpu_fallback") == "false");
  CHECK(attribute_or_empty(*cuda, "ext_name") == "k");
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
