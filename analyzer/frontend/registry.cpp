// The table of front ends by file kind. An optional front end (one whose
// folder may be absent or whose dependency may be missing) is compiled in
// when its library target exists; see analyzer/frontend/CMakeLists.txt.
#include <array>

#include "coverage/operator_coverage_pass.h"
#include "frontend/frontend.h"
#include "frontend/python/device_helper_pass.h"
#include "frontend/python/python_frontend.h"
#if MPSAUDIT_HAVE_MANIFEST
#include "frontend/manifest/dependency_pass.h"
#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/manifest_frontend.h"
#endif
#if MPSAUDIT_HAVE_CXX
#include "frontend/cxx/cxx_frontend.h"
#include "frontend/cxx/fallback_pass.h"
#include "frontend/cxx/registration_pass.h"
#endif
#if MPSAUDIT_HAVE_PROSE
#include "frontend/prose/prose_frontend.h"
#endif

namespace mpsaudit {
namespace {

ExtractorTable build_table() {
  ExtractorTable table;
  register_python_frontends(table);
#if MPSAUDIT_HAVE_MANIFEST
  register_manifest_frontends(table);
#endif
#if MPSAUDIT_HAVE_CXX
  register_cxx_frontends(table);
#endif
#if MPSAUDIT_HAVE_PROSE
  register_prose_frontends(table);
  // Notebook markdown cells are prose too: stated requirements live there.
  set_notebook_markdown_extractor(&extract_prose_text);
#endif
  return table;
}

} // namespace

const Extractor *find_extractor(FileKind kind) {
  static const ExtractorTable table = build_table();
  return table.find(kind);
}

const std::vector<ProjectPass> &frontend_project_passes() {
  // Order matters: op registrations look for Python fallbacks among the
  // imports before the dependency cross-check reads the same imports.
  static const std::vector<ProjectPass> passes = [] {
    std::vector<ProjectPass> list;
#if MPSAUDIT_HAVE_CXX
    list.push_back({"op-registrations",
                    {"op-registration", "kernel-launch", "cuda-kernel", "function-def", "import", "call",
                     "device-dispatch"},
                    {"op-registration", "cuda-kernel"},
                    resolve_op_registrations,
                    op_registrations_retention,
                    // Every module-level def (a Python fallback of an op), fallback
                    // imports, and calls of compiled ops inside functions.
                    {"def", "import"}});
    // After op-registrations: it reads which CUDA ops have fallbacks.
    list.push_back({"cpu-fallback",
                    {"device-dispatch", "cxx-function", "op-registration", "cuda-kernel", "device-function",
                     "build-source"},
                    cpu_fallback_guarded_kinds(),
                    resolve_cpu_fallbacks,
                    cpu_fallback_retention,
                    {}});
#endif
#if MPSAUDIT_HAVE_MANIFEST
    list.push_back({"dependency-cross-check",
                    {"dependency", "import"},
                    {"dependency", "unused-dependency", "undeclared-import"},
                    cross_check_dependencies,
                    dependency_pass_retention,
                    {"import"}});
    list.push_back({"cuda-extension-imports",
                    {"cxx-extension", "import", "required-import", "call"},
                    {std::string(kCudaExtensionImportFact)},
                    find_cuda_extension_imports,
                    extension_import_retention,
                    // Imports (and importlib.import_module), CUDAExtension builds and
                    // torch.utils.cpp_extension.load calls.
                    {"import", "extension", "load"}});
#endif
    list.push_back({"mps-by-name-callers",
                    {std::string(fact_kind::DeviceSelection), "device-helper-call"},
                    {std::string(kMpsByNameCallerFact)},
                    find_mps_by_name_callers,
                    device_helper_retention,
                    // CUDA availability tests and calls of helpers named *device*.
                    {"cuda", "device"}});
    list.push_back({"mps-operator-coverage",
                    {"call", "attribute", "dependency"},
                    {std::string(kMpsMissingOpFact)},
                    find_missing_mps_operators,
                    operator_coverage_retention,
                    // torch.* calls and attributes.
                    {"torch"}});
    return list;
  }();
  return passes;
}

} // namespace mpsaudit
