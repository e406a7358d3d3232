#include <catch2/catch.hpp>

#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using mpsaudit::test::fact_summaries;
using mpsaudit::test::python;

namespace {

ProjectFile setup_py(const std::string &path, const std::string &text) {
  return ProjectFile{path, FileKind::SetupPy, extract_setup_py(text, path)};
}

// "line:extension:guard" for every cuda-extension-import fact of a file.
std::vector<std::string> extension_imports(const ProjectFile &file) {
  return fact_summaries(file, kCudaExtensionImportFact, {"guard"});
}

} // namespace

TEST_CASE("imports of the CUDA extensions setup.py builds", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(setup_py("setup.py", "from torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                                       "exts = [CUDAExtension(name='pkg._C', sources=['a.cu']),\n"
                                       "        CUDAExtension('ops_cuda', ['b.cu']),\n"
                                       "        CUDAExtension('both_ways', ['c.cu']),\n"
                                       "        CppExtension('both_ways', ['c.cpp'])]\n"));
  // A relative import resolves from the file's package, below a src/ folder too.
  files.push_back(python("src/pkg/layers/norm.py", "from .. import _C\n"
                                                   "from ..other import _C as unrelated\n"
                                                   "import both_ways\n"
                                                   "def f():\n"
                                                   "    import importlib\n"
                                                   "    return importlib.import_module('ops_cuda')\n"));
  files.push_back(python("pkg/fast.py", "from pkg._C import forward\n"
                                        "try:\n"
                                        "    import ops_cuda\n"
                                        "except ImportError:\n"
                                        "    ops_cuda = None\n"
                                        "def g():\n"
                                        "    if ops_cuda is None:\n"
                                        "        raise RuntimeError('build ops_cuda')\n"));
  files.push_back(python("tests/test_ops.py", "import ops_cuda\n"));
  find_cuda_extension_imports(files);

  CHECK(extension_imports(files[1]) == std::vector<std::string>{"1:pkg._C:none", "6:ops_cuda:none"});
  CHECK(extension_imports(files[2]) ==
        std::vector<std::string>{"1:pkg._C:none", "3:ops_cuda:import-fallback", "7:ops_cuda:none"});
  CHECK(extension_imports(files[3]).empty()); // a kernel test imports its kernel
  for (const Fact &fact : files[1].facts.facts)
    if (fact.kind == kCudaExtensionImportFact && fact.name == "pkg._C")
      CHECK(*fact.attribute("built_at") == "setup.py:2");
}

TEST_CASE("no CUDA extension, no extension imports", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(setup_py("setup.py", "from torch.utils.cpp_extension import CppExtension\n"
                                       "ext = CppExtension('ops_cuda', ['b.cpp'])\n"));
  files.push_back(python("m.py", "import ops_cuda\n"));
  find_cuda_extension_imports(files);
  CHECK(extension_imports(files[1]).empty());
}

TEST_CASE("calls of ops of the extensions setup.py builds: CUDA-only, or CPU too on a Mac",
          "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(setup_py("setup.py", "from torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                                       "exts = [CUDAExtension('pkg.kernels._C', ['a.cu']),\n"
                                       "        CUDAExtension('pkg._C', ['b.cu']),\n"
                                       "        CppExtension('pkg._C', ['b.cpp']),\n"
                                       "        CppExtension('pkg.io._C', ['c.cpp'])]\n"));
  files.push_back(python("pkg/model.py", "from pkg.kernels import _C as fused\n"
                                         "from . import _C\n"
                                         "from pkg.io import _C as reader\n"
                                         "import torch\n"
                                         "def f(x):\n"
                                         "    y = fused.gelu(x)\n"
                                         "    z = _C.raster(y)\n"
                                         "    w = reader.read('m.obj')\n"
                                         "    return torch._C._get_tracing_state(), z, w\n"));
  find_cuda_extension_imports(files);
  std::vector<std::string> calls;
  for (const Fact &fact : files[1].facts.facts)
    if (fact.kind == fact_kind::ExtensionOpCall)
      calls.push_back(std::to_string(fact.span.line) + ":" + fact.name + ":" + *fact.attribute("build") +
                      ":" + *fact.attribute("extension"));
  // The call through the relative import is named as written. pkg.io._C is
  // built for the CPU everywhere, and torch._C is PyTorch's own.
  CHECK(calls == std::vector<std::string>{"6:pkg.kernels._C.gelu:cuda-only:pkg.kernels._C",
                                          "7:_C.raster:cpu-too:pkg._C"});
}
