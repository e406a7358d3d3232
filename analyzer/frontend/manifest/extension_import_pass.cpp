#include "frontend/manifest/extension_import_pass.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "core/compiled_op.h"
#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/python_imports.h"

namespace mpsaudit {
namespace {

constexpr std::string_view kImportModule = "importlib.import_module";
constexpr std::string_view kJitLoad = "torch.utils.cpp_extension.load";
// `if ops is None: raise` after an import with a None fallback (the Python
// front end): the extension is required after all.
constexpr std::string_view kRequiredImport = fact_kind::RequiredImport;

// A string argument by keyword, else by position.
const Argument *string_argument(const Fact &fact, std::string_view keyword, std::size_t position) {
  const Argument *argument = fact.keyword_argument(keyword);
  if (!argument)
    argument = fact.positional_argument(position);
  return argument && argument->is_string && !argument->value.empty() ? argument : nullptr;
}

// `load(name="ops_cuda", sources=["ops.cpp", "ops_kernel.cu"])`, or with
// cuda_sources: a module compiled by nvcc at run time.
bool loads_cuda_sources(const Fact &call) {
  if (call.keyword_argument("cuda_sources"))
    return true;
  const Argument *sources = call.keyword_argument("sources");
  if (!sources)
    sources = call.positional_argument(1);
  return sources && sources->text.find(".cu") != std::string::npos;
}

// The modules an import fact or an importlib.import_module call names.
std::vector<std::string> modules_named(const ProjectFile &file, const Fact &fact) {
  if (fact.kind != fact_kind::Call)
    return imported_modules(file, fact);
  const Argument *module = string_argument(fact, "name", 0);
  if (module && !starts_with(module->value, "."))
    return {module->value};
  return {};
}

// The extension an imported module is, or reaches into: `pkg._C` and
// `pkg._C.fwd` are both pkg._C. A relative import is resolved from the file's
// own path, which may carry a source folder above the package (src/pkg/...):
// it matches when it ends with the extension's full name.
const std::pair<const std::string, std::string> *
extension_of(const std::map<std::string, std::string> &extensions, const std::string &module, bool relative) {
  for (std::string candidate = module;;) {
    if (const auto found = extensions.find(candidate); found != extensions.end())
      return &*found;
    if (relative)
      for (const auto &entry : extensions)
        if (ends_with(candidate, "." + entry.first))
          return &entry;
    const auto dot = candidate.rfind('.');
    if (dot == std::string::npos)
      return nullptr;
    candidate.resize(dot);
  }
}

// The extensions this file imports relatively, by the name it binds them to
// (`from . import _C` binds `_C` to pkg._C): the front end qualifies a call
// through an absolute import (`pkg._C.op`, an alias too), but leaves one
// through a relative import as written (`_C.op`).
std::map<std::string, std::string> extensions_bound_in(const ProjectFile &file,
                                                       const std::map<std::string, std::string> &extensions) {
  std::map<std::string, std::string> bound;
  for (const Fact &fact : file.facts.facts) {
    if (fact.kind != fact_kind::Import || !fact.attribute("relative"))
      continue;
    for (const std::string &module : imported_modules(file, fact))
      if (const auto *extension = extension_of(extensions, module, true);
          extension && extension->first == module)
        bound.emplace(module.substr(module.rfind('.') + 1), extension->first);
  }
  return bound;
}

// The extension a compiled-op call goes into (`pkg._C.op`, or `_C.op` where
// the file binds `_C` to one), or null.
const std::pair<const std::string, std::string> *
extension_called(const std::map<std::string, std::string> &extensions,
                 const std::map<std::string, std::string> &bound, const Fact &call) {
  const std::string name = call.name.str();
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos)
    return nullptr;
  const std::string module = name.substr(0, dot);
  if (const auto found = extensions.find(module); found != extensions.end())
    return &*found;
  if (const auto alias = bound.find(module); alias != bound.end())
    return &*extensions.find(alias->second);
  return nullptr;
}

// A fact at each call of an op of an extension the repository builds, once
// per op and scope (what the retention keeps): where the port has to give
// the op another path, or feed it CPU tensors.
void add_extension_op_calls(ProjectFile &file, const std::map<std::string, std::string> &cuda_only,
                            const std::map<std::string, std::string> &cpu_too, std::vector<Fact> &added) {
  // Most files call no compiled op: their imports need not be read again.
  if (std::none_of(file.facts.facts.begin(), file.facts.facts.end(), may_call_compiled_module))
    return;
  const auto bound_cuda = extensions_bound_in(file, cuda_only);
  const auto bound_cpu = extensions_bound_in(file, cpu_too);
  for (const Fact &fact : file.facts.facts) {
    if (!may_call_compiled_module(fact))
      continue;
    const auto *extension = extension_called(cuda_only, bound_cuda, fact);
    const bool cuda = extension != nullptr;
    if (!extension)
      extension = extension_called(cpu_too, bound_cpu, fact);
    if (!extension)
      continue;
    Fact note = fact_at(fact, std::string(fact_kind::ExtensionOpCall), fact.name.str());
    note.set_attribute("extension", extension->first);
    note.set_attribute("built_at", extension->second);
    note.set_attribute("build", cuda ? "cuda-only" : "cpu-too");
    added.push_back(std::move(note));
  }
}

} // namespace

void find_cuda_extension_imports(std::vector<ProjectFile> &files) {
  // Extension module -> where it is built ("setup.py:12").
  std::map<std::string, std::string> extensions;
  std::set<std::string> built_for_cpu;
  std::map<std::string, std::string> cpu_too; // also built as a CppExtension: a Mac has its CPU build
  for (const ProjectFile &file : files)
    for (const Fact &fact : file.facts.facts) {
      const std::string where = file.path + ":" + std::to_string(fact.span.line);
      if (fact.kind == manifest_fact_kind::CxxExtension) {
        const std::string *name = fact.attribute("ext_name");
        if (!name)
          continue;
        if (fact.name == "CppExtension")
          built_for_cpu.insert(*name);
        else
          extensions.try_emplace(*name, where);
      } else if (fact.kind == fact_kind::Call && fact.name == kJitLoad && loads_cuda_sources(fact)) {
        if (const Argument *name = string_argument(fact, "name", 0))
          extensions.try_emplace(name->value, where);
      }
    }
  for (const auto &name : built_for_cpu)
    if (const auto found = extensions.find(name); found != extensions.end()) {
      cpu_too.insert(*found);
      extensions.erase(found);
    }
  if (extensions.empty() && cpu_too.empty())
    return;

  for (ProjectFile &file : files) {
    if (!is_python_code(file.kind) || is_test_module(file.path))
      continue;
    std::vector<Fact> added;
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::string>> reported;
    for (const Fact &fact : file.facts.facts) {
      const bool import_call = fact.kind == fact_kind::Call && fact.name == kImportModule;
      if (fact.kind != fact_kind::Import && fact.kind != kRequiredImport && !import_call)
        continue;
      const bool relative = fact.attribute("relative") != nullptr;
      for (const std::string &module : modules_named(file, fact)) {
        const auto *extension = extension_of(extensions, module, relative);
        if (!extension || !reported.emplace(fact.span.line, fact.span.column, extension->first).second)
          continue;
        Fact note = fact_at(fact, std::string(kCudaExtensionImportFact), extension->first);
        if (const std::string *option = fact.attribute("option"))
          note.set_attribute("option", *option);
        note.set_attribute("built_at", extension->second);
        note.set_attribute("value", module);
        note.set_attribute("effect", fact.kind == kRequiredImport
                                         ? "this test raises when it is missing, as it is on a Mac"
                                         : "this import raises ImportError on a Mac");
        added.push_back(std::move(note));
      }
    }
    add_extension_op_calls(file, extensions, cpu_too, added);
    append_facts(file, std::move(added));
  }
}

FactRetention extension_import_retention(const Fact &fact) {
  if (fact.kind == fact_kind::Call && (fact.name == kImportModule || fact.name == kJitLoad))
    return FactRetention::Keep;
  if (fact.kind == fact_kind::Call) // an op call's place, once per op and scope
    return may_call_compiled_module(fact) ? FactRetention::NameOnly : FactRetention::Drop;
  return FactRetention::Keep;
}

} // namespace mpsaudit
