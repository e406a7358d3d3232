// The extension-import project pass: which Python imports load a CUDA
// extension that the repository builds itself.
//
// setup.py names the compiled modules it builds (`CUDAExtension(name=
// "pkg.ops_cuda", ...)`), and Python code may build one at run time with
// `torch.utils.cpp_extension.load(name=..., sources=[... .cu])`. Such a
// module exists only where CUDA compiled it: on a Mac `import ops_cuda`,
// `from pkg import ops_cuda`, `from . import ops_cuda` or
// `importlib.import_module("ops_cuda")` raises ImportError. The pass adds a
// `cuda-extension-import` fact at each such import (outside tests) naming the
// extension and where it is built; the import's guard is kept, so one behind
// a working try/except ImportError fallback is reported at info
// (rules/extension.toml). A fallback that only binds None and raises where
// the module is needed (`if ops is None: raise`) is none: the Python front
// end's `required-import` fact marks that test, and it is reported there. A module that setup.py also builds
// as a CppExtension is left alone: it exists on a Mac too.
#pragma once

#include <string_view>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

// name: the extension module; attributes built_at ("setup.py:12"), value
// (the name as imported), effect (what fails there, for the message).
inline constexpr std::string_view kCudaExtensionImportFact = fact_kind::CudaExtensionImport;

void find_cuda_extension_imports(std::vector<ProjectFile> &files);

// What the pass needs: extension definitions and imports whole (a relative
// import's names, the line for the snippet), and of calls only
// importlib.import_module and cpp_extension.load.
FactRetention extension_import_retention(const Fact &fact);

} // namespace mpsaudit
