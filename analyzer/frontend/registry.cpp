// The table of front ends by file kind. An optional front end (one whose
// folder may be absent or whose dependency may be missing) is compiled in
// when its library target exists; see analyzer/frontend/CMakeLists.txt.
#include <array>

#include "core/fact_kinds.h"
#include "coverage/operator_coverage_pass.h"
#include "frontend/frontend.h"
#include "frontend/python/device_helper_pass.h"
#include "frontend/python/python_frontend.h"
#if MPSAUDIT_HAVE_MANIFEST
#include "frontend/manifest/dependency_pass.h"
#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/local_import_pass.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/option_default_pass.h"
#endif
#if MPSAUDIT_HAVE_CXX
#include "frontend/cxx/cxx_frontend.h"
#include "frontend/cxx/fallback_pass.h"
#include "frontend/cxx/op_call_pass.h"
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

const ExtractorTable &table() {
  static const ExtractorTable built = build_table();
  return built;
}

} // namespace

const Extractor *find_extractor(FileKind kind) {
  return table().find(kind);
}

void release_reading_memory() {
  table().release_reading_memory();
}

bool extractors_loaded() {
  return table().loaded();
}

namespace {

std::vector<std::string> kinds(std::initializer_list<std::string_view> listed) {
  return {listed.begin(), listed.end()};
}

} // namespace

const std::vector<ProjectPass> &frontend_project_passes() {
  // Order matters: op registrations look for Python fallbacks among the
  // imports before the dependency cross-check reads the same imports.
  static const std::vector<ProjectPass> passes = [] {
    std::vector<ProjectPass> list;
#if MPSAUDIT_HAVE_CXX
    list.push_back({"op-registrations",
                    kinds({fact_kind::OpRegistration, fact_kind::KernelLaunch, fact_kind::CudaKernel,
                           fact_kind::FunctionDef, fact_kind::Import, fact_kind::Call,
                           fact_kind::DeviceDispatch, fact_kind::BuildSource}),
                    kinds({fact_kind::OpRegistration, fact_kind::CudaKernel}),
                    resolve_op_registrations,
                    op_registrations_retention,
                    // Every module-level def (a Python fallback of an op), fallback
                    // imports, and calls of compiled ops inside functions; build
                    // sources name the module a pybind11 binding becomes.
                    {"def", "import"}});
    // After op-registrations: it reads which CUDA ops have fallbacks.
    list.push_back({"cpu-fallback",
                    kinds({fact_kind::DeviceDispatch, fact_kind::CxxFunction, fact_kind::OpRegistration,
                           fact_kind::CudaKernel, fact_kind::DeviceFunction, fact_kind::BuildSource}),
                    cpu_fallback_guarded_kinds(),
                    resolve_cpu_fallbacks,
                    cpu_fallback_retention,
                    {}});
    list.push_back({"cpu-dispatched-op-calls",
                    kinds({fact_kind::Call, fact_kind::OpRegistration, fact_kind::DeviceDispatch}),
                    kinds({kCpuDispatchedOpCallFact}),
                    find_cpu_dispatched_op_calls,
                    op_call_retention,
                    // torch.ops.ns.op and _C.op calls.
                    {"ops.", "_c."}});
#endif
#if MPSAUDIT_HAVE_MANIFEST
    list.push_back({"dependency-cross-check",
                    kinds({fact_kind::Dependency, fact_kind::Import}),
                    kinds({fact_kind::Dependency, fact_kind::UnusedDependency, fact_kind::UndeclaredImport}),
                    cross_check_dependencies,
                    dependency_pass_retention,
                    {"import"}});
    list.push_back(
        {"cuda-extension-imports",
         kinds({fact_kind::CxxExtension, fact_kind::Import, fact_kind::RequiredImport, fact_kind::Call}),
         kinds({kCudaExtensionImportFact, fact_kind::ExtensionOpCall}),
         find_cuda_extension_imports,
         extension_import_retention,
         // Imports (and importlib.import_module), CUDAExtension builds and
         // torch.utils.cpp_extension.load calls.
         {"import", "extension", "load"}});
    list.push_back({"local-cuda-only-imports",
                    kinds({fact_kind::Import, fact_kind::RequiredImport, kCudaExtensionImportFact}),
                    kinds({kLocalCudaOnlyImportFact}),
                    find_local_cuda_only_imports,
                    local_import_retention,
                    {"import"}});
    // After both import passes: it reads which option-gated imports fail.
    list.push_back({"cuda-option-defaults",
                    kinds({fact_kind::Import, kLocalCudaOnlyImportFact, kCudaExtensionImportFact,
                           fact_kind::ParameterDefault, fact_kind::ConfigValue}),
                    kinds({kCudaOptionDefaultFact}),
                    find_cuda_option_defaults,
                    option_default_retention,
                    // Imports behind options, and defaults of True.
                    {"import", "true"}});
#endif
    list.push_back({"mps-by-name-callers",
                    kinds({fact_kind::DeviceSelection, fact_kind::DeviceHelperCall}),
                    kinds({kMpsByNameCallerFact}),
                    find_mps_by_name_callers,
                    device_helper_retention,
                    // CUDA availability tests and calls of helpers named *device*.
                    {"cuda", "device"}});
    list.push_back({"mps-operator-coverage",
                    kinds({fact_kind::Call, fact_kind::Attribute, fact_kind::Dependency}),
                    kinds({kMpsMissingOpFact}),
                    find_missing_mps_operators,
                    operator_coverage_retention,
                    // torch.* calls and attributes.
                    {"torch"},
                    operator_coverage_retention_inputs});
    return list;
  }();
  return passes;
}

} // namespace mpsaudit
