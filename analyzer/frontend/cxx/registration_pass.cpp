#include "frontend/cxx/registration_pass.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiled_op.h"
#include "frontend/cxx/build_sources.h"
#include "frontend/cxx/fact_access.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit {
namespace {

using cxx::attribute_or;
using cxx::last_component;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Every registration of every op, by backend, with where it was first seen.
struct RegistrationIndex {
  std::map<std::string, std::map<std::string, std::string>> locations; // op -> backend -> at

  void add(const Fact &fact, const std::string &path) {
    const std::string backend = attribute_or(fact, "backend");
    auto &by_backend = locations[fact.name];
    if (!by_backend.count(backend))
      by_backend[backend] = path.empty() ? "line " + std::to_string(fact.span.line)
                                         : path + ":" + std::to_string(fact.span.line);
  }
};

// What the Python front end saw that can stand in for a compiled op.
struct PythonFallbacks {
  // The ops asked about: those of the CUDA registrations (op_of). Only
  // functions of these names are noted, not every module-level function of
  // the tree.
  std::set<std::string, std::less<>> ops;
  // Module-level functions by name: (path, line), in scan order.
  std::multimap<std::string, std::pair<std::string, std::uint32_t>> module_functions;
  // (path, function) pairs whose body calls the compiled op of the same name
  // (torch.ops.ns.op, ext._C.op): wrappers of the op, not replacements.
  std::set<std::pair<std::string, std::string>> wrappers;
  // Modules imported inside try/except ImportError, with where.
  std::vector<std::pair<std::string, std::string>> guarded_imports;

  // Whether a Python fact can say anything here (op_registrations_need).
  static bool reads(const Fact &fact) {
    if (fact.kind == fact_kind::FunctionDef)
      return fact.scope.empty();
    if (fact.kind == fact_kind::Import)
      return fact.guard == Guard::ImportFallback;
    if (fact.kind == fact_kind::Call)
      return !fact.scope.empty() && is_compiled_op_call(fact);
    return false;
  }

  void add(const Fact &fact, const std::string &path) {
    if (!reads(fact))
      return;
    if (fact.kind == fact_kind::FunctionDef) {
      if (ops.count(std::string_view(fact.name)))
        module_functions.emplace(fact.name, std::make_pair(path, fact.span.line));
    } else if (fact.kind == fact_kind::Import) {
      guarded_imports.emplace_back(fact.name, path + ":" + std::to_string(fact.span.line));
    } else if (ops.count(std::string_view(fact.scope)) && last_dotted(fact.name) == last_dotted(fact.scope)) {
      wrappers.emplace(path, fact.scope); // calls the op its function is named after
    }
  }

  // "def op at path:line" for a module-level function named `op` that is not
  // a thin wrapper around the compiled op itself.
  std::string replacement_for(const std::string &op) const {
    const auto [begin, end] = module_functions.equal_range(op);
    for (auto it = begin; it != end; ++it)
      if (!wrappers.count({it->second.first, op}))
        return "def " + op + " at " + it->second.first + ":" + std::to_string(it->second.second);
    return {};
  }

  static std::string last_dotted(const std::string &name) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
  }

  // A guarded import of a module with a component named after the op's
  // namespace (fused_ops._C for ops in fused_ops) guards the extension.
  std::string guarded_import_for(const std::string &ns) const {
    if (ns.empty() || ns == "TORCH_EXTENSION_NAME")
      return {};
    for (const auto &[module, at] : guarded_imports) {
      std::size_t start = 0;
      while (start <= module.size()) {
        const std::size_t dot = module.find('.', start);
        const std::string component =
            module.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (component == ns)
          return module + " at " + at;
        if (dot == std::string::npos)
          break;
        start = dot + 1;
      }
    }
    return {};
  }
};

// Functions that dispatch on the device themselves and have a CPU arm
// (device-dispatch facts, device_dispatch.h): binding one binds its CPU path too.
struct DispatchIndex {
  std::map<std::string, std::string> cpu_fallback_at; // function -> where

  void add(const Fact &fact, const std::string &path) {
    if (fact.kind != cxx::kind::DeviceDispatch || attribute_or(fact, "cpu_fallback") != "true")
      return;
    cpu_fallback_at.emplace(fact.name, path.empty() ? "line " + std::to_string(fact.span.line)
                                                    : path + ":" + std::to_string(fact.span.line));
  }
};

bool is_cuda_registration(const Fact &fact) {
  return fact.kind == cxx::kind::OpRegistration && attribute_or(fact, "backend") == "CUDA";
}

// The op a CUDA registration binds: the name a Python fallback would have.
std::string op_of(const Fact &registration) {
  return attribute_or(registration, "op", last_component(registration.name));
}

// `modules`: the Python modules a build compiles the registering file into,
// for a PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) that names none itself.
void annotate(Fact &fact, const RegistrationIndex &index, const DispatchIndex &dispatches,
              const PythonFallbacks *python, const std::vector<std::string> &modules = {}) {
  if (!is_cuda_registration(fact))
    return;
  std::string cpu_at, mps_at, composite_at;
  if (auto found = index.locations.find(fact.name); found != index.locations.end())
    for (const auto &[backend, at] : found->second) {
      if (backend == "CPU" && cpu_at.empty())
        cpu_at = at;
      else if (backend == "MPS" && mps_at.empty())
        mps_at = at;
      else if (starts_with(backend, "Composite") && composite_at.empty())
        composite_at = at;
    }
  const auto dispatch = dispatches.cpu_fallback_at.find(last_component(attribute_or(fact, "function")));
  const bool device_dispatch = dispatch != dispatches.cpu_fallback_at.end();
  fact.set_attribute("device_dispatch", device_dispatch ? "true" : "false");
  if (device_dispatch && cpu_at.empty())
    cpu_at = dispatch->second;
  std::string python_at;
  if (python) {
    python_at = python->replacement_for(op_of(fact));
    if (python_at.empty())
      python_at = python->guarded_import_for(attribute_or(fact, "namespace"));
    for (const std::string &module : modules)
      if (python_at.empty())
        python_at = python->guarded_import_for(PythonFallbacks::last_dotted(module));
  }

  std::string fallbacks;
  auto note = [&](const std::string &where, const char *label, const char *has_key, const char *at_key) {
    fact.set_attribute(has_key, where.empty() ? "false" : "true");
    if (where.empty())
      return;
    fact.set_attribute(at_key, where);
    fallbacks += (fallbacks.empty() ? "" : ",") + std::string(label);
  };
  note(cpu_at, "cpu", "has_cpu_impl", "cpu_impl_at");
  note(mps_at, "mps", "has_mps_impl", "mps_impl_at");
  note(composite_at, "composite", "has_composite_impl", "composite_impl_at");
  note(python_at, "python", "has_python_fallback", "python_fallback_at");
  fact.set_attribute("fallbacks", fallbacks.empty() ? "none" : fallbacks);
  fact.set_attribute("critical_path", fallbacks.empty() ? "true" : "false");
}

} // namespace

void resolve_op_registrations_in(std::vector<Fact> &facts) {
  RegistrationIndex index;
  DispatchIndex dispatches;
  for (const auto &fact : facts) {
    if (fact.kind == cxx::kind::OpRegistration)
      index.add(fact, "");
    dispatches.add(fact, "");
  }
  for (auto &fact : facts)
    annotate(fact, index, dispatches, nullptr);
}

FactRetention op_registrations_retention(const Fact &fact) {
  if (fact.kind == fact_kind::FunctionDef || fact.kind == fact_kind::Import || fact.kind == fact_kind::Call)
    return PythonFallbacks::reads(fact) ? FactRetention::NameOnly : FactRetention::Drop;
  return FactRetention::Keep; // op-registration, kernel-launch, cuda-kernel
}

void resolve_op_registrations(std::vector<ProjectFile> &files) {
  RegistrationIndex index;
  DispatchIndex dispatches;
  PythonFallbacks python;
  std::map<std::string, std::size_t> launches_by_kernel;
  for (const auto &file : files) {
    if (!is_cxx_code(file.kind))
      continue;
    for (const auto &fact : file.facts.facts) {
      if (fact.kind == cxx::kind::OpRegistration)
        index.add(fact, file.path);
      else if (fact.kind == cxx::kind::KernelLaunch)
        ++launches_by_kernel[last_component(fact.name)];
      if (is_cuda_registration(fact))
        python.ops.insert(op_of(fact));
      dispatches.add(fact, file.path);
    }
  }
  // Then the Python side, for the ops registered for CUDA only.
  if (!python.ops.empty())
    for (const auto &file : files)
      if (is_python_code(file.kind))
        for (const auto &fact : file.facts.facts)
          python.add(fact, file.path);
  const BuildSources builds(files);
  for (auto &file : files) {
    if (!is_cxx_code(file.kind))
      continue;
    std::vector<std::string> modules;
    bool modules_known = false;
    for (auto &fact : file.facts.facts) {
      if (fact.kind == cxx::kind::OpRegistration) {
        if (!modules_known && attribute_or(fact, "namespace") == "TORCH_EXTENSION_NAME") {
          modules = builds.extension_modules(file.path);
          modules_known = true;
        }
        annotate(fact, index, dispatches, &python, modules);
      } else if (fact.kind == cxx::kind::CudaKernel) {
        const auto found = launches_by_kernel.find(fact.name);
        const std::size_t launches = found == launches_by_kernel.end() ? 0 : found->second;
        fact.set_attribute("launches", std::to_string(launches));
      }
    }
  }
}

} // namespace mpsaudit
