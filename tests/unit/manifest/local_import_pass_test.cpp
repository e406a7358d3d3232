// The local-import pass (frontend/manifest/local_import_pass.h): an import of
// a module of the tree whose top level needs a package with no Mac build, or
// a CUDA extension the tree builds, is reported one step from the cause.
#include <catch2/catch.hpp>

#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/local_import_pass.h"
#include "frontend/manifest/manifest_frontend.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using mpsaudit::test::fact_summaries;
using mpsaudit::test::python;

namespace {

// "line:module:needs:guard" for every local-cuda-only-import fact of a file.
std::vector<std::string> local_imports(const ProjectFile &file) {
  return fact_summaries(file, kLocalCudaOnlyImportFact, {"value", "guard"});
}

// pkg/model.py of text `model` beside a pkg/norm.py that needs Triton,
// after the pass; the model is the third file.
std::vector<ProjectFile> package_with_triton_norm(const std::string &model) {
  std::vector<ProjectFile> files{python("pkg/__init__.py", ""), python("pkg/norm.py", "import triton\n"),
                                 python("pkg/model.py", model)};
  find_local_cuda_only_imports(files);
  return files;
}

const Fact *first_local_import(const ProjectFile &file) {
  for (const Fact &fact : file.facts.facts)
    if (fact.kind == kLocalCudaOnlyImportFact)
      return &fact;
  return nullptr;
}

} // namespace

TEST_CASE("imports of the tree's modules whose top level needs a CUDA-only package", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(python("pkg/__init__.py", "from pkg.model import Net\n"));
  files.push_back(python("pkg/kernels/__init__.py", ""));
  files.push_back(python("pkg/kernels/fused.py", "import torch\nimport triton.language as tl\n"));
  files.push_back(python("pkg/kernels/lazy.py", "def f():\n    import triton\n"));
  files.push_back(python("pkg/kernels/optional.py", "try:\n    import triton\nexcept ImportError:\n"
                                                    "    triton = None\n"));
  files.push_back(python("pkg/model.py", "from pkg.kernels.fused import fused_norm\n"
                                         "from .kernels.lazy import f\n"
                                         "from .kernels import optional, fused\n"
                                         "try:\n"
                                         "    import pkg.kernels.fused as fast\n"
                                         "except ImportError:\n"
                                         "    fast = None\n"
                                         "def build():\n"
                                         "    from pkg.kernels.fused import fused_norm\n"));
  files.push_back(python("tests/test_fused.py", "from pkg.kernels.fused import fused_norm\n"));
  files.push_back(python("train.py", "from pkg import Net\nimport pkg.kernels.fused\n"));
  find_local_cuda_only_imports(files);

  CHECK(local_imports(files[5]) == std::vector<std::string>{"1:pkg.kernels.fused:triton:none",
                                                            "3:pkg.kernels.fused:triton:none",
                                                            "5:pkg.kernels.fused:triton:import-fallback",
                                                            "9:pkg.kernels.fused:triton:none"});
  const Fact *first = first_local_import(files[5]);
  REQUIRE(first != nullptr);
  CHECK(*first->attribute("needed_at") == "pkg/kernels/fused.py:2");
  CHECK(*first->attribute("why_missing") == "a package with no Mac build");
  CHECK(first->scope.empty());
  // One step from the cause only: pkg/__init__.py imports model, which fails through fused.
  CHECK(local_imports(files[0]).empty());
  CHECK(local_imports(files[6]).empty()); // tests import what they test
  CHECK(local_imports(files[7]) == std::vector<std::string>{"2:pkg.kernels.fused:triton:none"});
  for (std::size_t i : {1, 2, 3, 4})
    CHECK(local_imports(files[i]).empty());
}

TEST_CASE("a module needing a CUDA extension the tree builds, below a src folder", "[manifest][pass]") {
  std::vector<ProjectFile> files;
  files.push_back(ProjectFile{"setup.py", FileKind::SetupPy,
                              extract_setup_py("from torch.utils.cpp_extension import CUDAExtension\n"
                                               "ext = CUDAExtension('pkg._C', ['a.cu'])\n",
                                               "setup.py")});
  files.push_back(python("src/pkg/ops.py", "from pkg import _C\n"));
  files.push_back(python("src/pkg/layers.py", "from pkg.ops import forward\nfrom .ops import backward\n"));
  find_cuda_extension_imports(files);
  find_local_cuda_only_imports(files);
  CHECK(local_imports(files[2]) ==
        std::vector<std::string>{"1:pkg.ops:pkg._C:none", "2:src.pkg.ops:pkg._C:none"});
  const Fact *first = first_local_import(files[2]);
  REQUIRE(first != nullptr);
  CHECK(*first->attribute("why_missing") == "a CUDA extension that only nvcc builds");
  CHECK(*first->attribute("needed_at") == "src/pkg/ops.py:1");
}

TEST_CASE("the tree's own copy of a CUDA-only package is read, not reported", "[manifest][pass]") {
  // The tree is the triton package: its modules importing triton need nothing a Mac lacks.
  std::vector<ProjectFile> files;
  files.push_back(python("triton/__init__.py", "from triton.language import core\n"));
  files.push_back(python("triton/language.py", "import triton\ncore = 1\n"));
  files.push_back(python("demo.py", "from triton.language import core\n"));
  find_local_cuda_only_imports(files);
  for (const ProjectFile &file : files)
    CHECK(local_imports(file).empty());
}

TEST_CASE("a test that raises when a guarded import of such a module failed is reported too",
          "[manifest][pass]") {
  const std::vector<ProjectFile> files =
      package_with_triton_norm("try:\n"
                               "    from pkg.norm import rms_norm_fn, layer_norm_fn\n"
                               "except ImportError:\n"
                               "    rms_norm_fn, layer_norm_fn = None, None\n"
                               "class Net:\n"
                               "    def __init__(self, fused=True):\n"
                               "        if fused:\n"
                               "            if layer_norm_fn is None or rms_norm_fn is None:\n"
                               "                raise ImportError('needs Triton')\n"
                               "        if self.ready() or layer_norm_fn is None:\n"
                               "            pass\n");

  // The import itself keeps its guard; the test that raises has none. The
  // last test does not raise, so it requires nothing.
  CHECK(local_imports(files[2]) ==
        std::vector<std::string>{"2:pkg.norm:triton:import-fallback", "8:pkg.norm:triton:none"});
  const Fact *import = first_local_import(files[2]);
  REQUIRE(import);
  CHECK(*import->attribute("effect") == "this import raises ImportError on a Mac");
  CHECK(*files[2].facts.facts.back().attribute("effect") ==
        "this test raises when the import failed, as it does on a Mac");
}

TEST_CASE("the same test after a relative fallback import is reported too", "[manifest][pass]") {
  std::vector<ProjectFile> files = package_with_triton_norm("try:\n"
                                                            "    from .norm import rms_norm_fn\n"
                                                            "except ImportError:\n"
                                                            "    rms_norm_fn = None\n"
                                                            "def norm(x):\n"
                                                            "    if rms_norm_fn is None:\n"
                                                            "        raise ImportError('needs Triton')\n"
                                                            "    return rms_norm_fn(x)\n");
  CHECK(local_imports(files[2]) ==
        std::vector<std::string>{"2:pkg.norm:triton:import-fallback", "6:pkg.norm:triton:none"});

  // Near case: a relative import outside any try is not a fallback, and a
  // test of it requires nothing more than the import itself.
  files[2] = python("pkg/model.py", "from .norm import rms_norm_fn\n"
                                    "def norm(x):\n"
                                    "    if rms_norm_fn is None:\n"
                                    "        raise ImportError('needs Triton')\n"
                                    "    return rms_norm_fn(x)\n");
  find_local_cuda_only_imports(files);
  CHECK(local_imports(files[2]) == std::vector<std::string>{"1:pkg.norm:triton:none"});
}
