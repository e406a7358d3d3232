#include "assess/option_gating.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>

#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

// How the main path's importers use one module.
struct ModuleUses {
  int optional = 0;
  int required = 0;
};

// A Python module that calls compiled ops, with what it defines.
struct OpWrapper {
  std::size_t file = 0;
  std::vector<std::string> op_stems;
  std::set<std::string> definitions; // top-level classes and functions
  ModuleUses uses;
  bool gated() const { return uses.optional > 0 && uses.required == 0; }
};

std::vector<OpWrapper> find_op_wrappers(const std::vector<ProjectFile> &files,
                                        const std::vector<std::string> &not_the_op) {
  std::vector<OpWrapper> wrappers;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].kind != FileKind::Python)
      continue;
    OpWrapper wrapper;
    wrapper.file = i;
    for (const Fact &fact : files[i].facts.facts) {
      if (is_compiled_op_call(fact))
        wrapper.op_stems.push_back(op_stem(fact.name.substr(fact.name.rfind('.') + 1), not_the_op));
      else if (is_top_level_definition(fact))
        wrapper.definitions.insert(fact.name);
    }
    if (wrapper.op_stems.empty())
      continue;
    std::sort(wrapper.op_stems.begin(), wrapper.op_stems.end());
    wrapper.op_stems.erase(std::unique(wrapper.op_stems.begin(), wrapper.op_stems.end()),
                           wrapper.op_stems.end());
    wrappers.push_back(std::move(wrapper));
  }
  return wrappers;
}

bool is_package_init(std::string_view path) {
  return path == "__init__.py" || ends_with(path, "/__init__.py");
}

bool inside(std::string_view path, std::string_view directory) {
  return directory.empty() ||
         (starts_with(path, directory) && path.size() > directory.size() && path[directory.size()] == '/');
}

// Whether importing `name` from the module file `target` reaches the
// wrapper: the wrapper itself, or one of its definitions re-exported by a
// package above it. Importing the wrapper's own package without a name
// (`import pkg.layers as L`) may reach it too; a package further up
// (`import pkg`) is no use of every module below it.
bool reaches_wrapper(const std::vector<ProjectFile> &files, std::size_t target, std::string_view name,
                     const OpWrapper &wrapper) {
  if (target == wrapper.file)
    return true;
  const std::string &target_path = files[target].path;
  const std::string_view wrapper_directory = directory_of(files[wrapper.file].path);
  if (!is_package_init(target_path) || !inside(files[wrapper.file].path, directory_of(target_path)))
    return false;
  return name.empty() ? directory_of(target_path) == wrapper_directory
                      : wrapper.definitions.count(std::string(name)) > 0;
}

bool is_optional_import(const Fact &fact) {
  const std::string *use = fact.attribute("use");
  return fact.guard == Guard::OptionalPath || (use && *use == "optional");
}

// Counts each import of a wrapper by a file on a main entry's path.
void count_uses(const std::vector<ProjectFile> &files, const ModuleIndex &index, const Reachability &reach,
                std::vector<OpWrapper> &wrappers) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ProjectFile &file = files[i];
    if (file.kind != FileKind::Python || reach.files[i].status != ReachStatus::Reached ||
        is_package_init(file.path))
      continue; // a package __init__ re-exports; it does not use
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != fact_kind::Import)
        continue;
      const auto count = [&](std::optional<std::size_t> target, std::string_view name) {
        if (!target || *target == i)
          return;
        for (OpWrapper &wrapper : wrappers)
          if (wrapper.file != i && reaches_wrapper(files, *target, name, wrapper))
            ++(is_optional_import(fact) ? wrapper.uses.optional : wrapper.uses.required);
      };
      if (!fact.attribute("relative")) {
        const std::string &module = fact.name;
        const auto target = index.resolve(module, i);
        // `import pkg.mod` names a module; `from pkg import Name` a name in it.
        const bool names_module =
            target && (ends_with(files[*target].path, as_module_path(module) + ".py") ||
                       ends_with(files[*target].path, as_module_path(module) + "/__init__.py"));
        count(target,
              names_module ? std::string_view() : std::string_view(module).substr(module.rfind('.') + 1));
        continue;
      }
      const std::string *names = fact.attribute("names");
      if (!names) {
        count(index.resolve_relative(file.path, fact.name), {});
        continue;
      }
      for_each_listed_name(*names, [&](std::string_view name) {
        if (auto member = index.resolve_relative(file.path, relative_member(fact.name, name)))
          count(member, {});
        else
          count(index.resolve_relative(file.path, fact.name), name);
      });
    }
  }
}

// Native sources by the wrappers whose ops they implement: by name stem,
// and the rest of a claimed directory with them.
std::map<std::size_t, std::set<std::size_t>> claim_natives(const std::vector<ProjectFile> &files,
                                                           const std::vector<OpWrapper> &wrappers,
                                                           const std::vector<std::string> &not_the_op) {
  constexpr std::size_t kShortestStem = 4; // "nms", "add" would claim too much
  std::map<std::size_t, std::set<std::size_t>> by_native;
  std::map<std::string_view, std::set<std::size_t>> by_directory;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!is_native_source(files[i].kind))
      continue;
    const std::string &path = files[i].path;
    const std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
    const std::string stem = op_stem(name.substr(0, name.find('.')), not_the_op);
    if (stem.size() < kShortestStem)
      continue;
    for (std::size_t w = 0; w < wrappers.size(); ++w)
      for (const std::string &op : wrappers[w].op_stems)
        if (op.size() >= kShortestStem &&
            (op.find(stem) != std::string::npos || stem.find(op) != std::string::npos)) {
          by_native[i].insert(w);
          by_directory[directory_of(path)].insert(w);
        }
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (is_native_source(files[i].kind))
      if (const auto found = by_directory.find(directory_of(files[i].path)); found != by_directory.end())
        by_native[i].insert(found->second.begin(), found->second.end());
  return by_native;
}

// Calls `visit` with each word of a file or op name ("warp_conv-v2.cu").
template <typename Visit> void for_each_word(std::string_view name, Visit visit) {
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find_first_of("_-.", start), name.size());
    if (end > start)
      visit(name.substr(start, end - start));
    start = end + 1;
  }
}

// The module a local-cuda-only-import fact names, by its path: the path part
// of `needed_at` ("pkg/ops/fused.py:3").
std::string_view cuda_only_module_path(const Fact &fact) {
  const std::string *needed_at = fact.attribute("needed_at");
  if (!needed_at)
    return {};
  const std::string_view place(*needed_at);
  return place.substr(0, place.rfind(':'));
}

// A CUDA-only module of the tree (its top level needs a package with no Mac
// build) is gated when every file on a main entry's path that imports it does
// so behind a guard the Mac does not pass: a CUDA check, an import fallback,
// an option. A package __init__ counts like any importer here: importing the
// package runs its top level. A required-import test (`if fn is None:
// raise`) is unguarded, so it keeps the module required.
std::vector<OptionGate> guarded_cuda_only_modules(const std::vector<ProjectFile> &files,
                                                  const ModuleIndex &index, const Reachability &reach) {
  std::map<std::size_t, ModuleUses> uses;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (reach.files[i].status != ReachStatus::Reached)
      continue;
    for (const Fact &fact : files[i].facts.facts) {
      if (fact.kind != fact_kind::LocalCudaOnlyImport)
        continue;
      const std::optional<std::size_t> module = index.file_of_path(cuda_only_module_path(fact));
      if (!module || *module == i)
        continue;
      const bool guarded = fact.guard != Guard::None || fact.attribute("option");
      ++(guarded ? uses[*module].optional : uses[*module].required);
    }
  }
  std::vector<OptionGate> gates;
  for (const auto &[module, counted] : uses)
    if (counted.optional > 0 && counted.required == 0 && reach.files[module].status == ReachStatus::Reached)
      gates.push_back({module, files[module].path});
  return gates;
}

} // namespace

bool is_top_level_definition(const Fact &fact) {
  // A class's own fact carries its name as its scope.
  return (fact.kind == fact_kind::FunctionDef && fact.scope.empty()) ||
         (fact.kind == fact_kind::ClassDef && fact.scope == fact.name);
}

std::string op_stem(std::string_view name, const std::vector<std::string> &not_the_op) {
  std::string stem;
  for_each_word(name, [&](std::string_view word) {
    const std::string lower = to_lower(word);
    if (is_one_of(lower, not_the_op))
      return;
    for (const char c : lower)
      if (std::isalnum(static_cast<unsigned char>(c)))
        stem += c;
  });
  return stem;
}

std::vector<OptionGate> find_option_gated_files(const std::vector<ProjectFile> &files,
                                                const ModuleIndex &index, const Reachability &reach,
                                                const std::vector<std::string> &not_the_op) {
  std::vector<OptionGate> gates = guarded_cuda_only_modules(files, index, reach);
  std::vector<OpWrapper> wrappers = find_op_wrappers(files, not_the_op);
  if (wrappers.empty())
    return gates;
  count_uses(files, index, reach, wrappers);
  const auto gate = [&](std::size_t file, const OpWrapper &wrapper) {
    const bool already =
        std::any_of(gates.begin(), gates.end(), [&](const OptionGate &gated) { return gated.file == file; });
    if (reach.files[file].status == ReachStatus::Reached && !already)
      gates.push_back({file, files[wrapper.file].path});
  };
  for (const OpWrapper &wrapper : wrappers)
    if (wrapper.gated())
      gate(wrapper.file, wrapper);
  for (const auto &[native, claimants] : claim_natives(files, wrappers, not_the_op)) {
    const bool all_gated =
        std::all_of(claimants.begin(), claimants.end(), [&](std::size_t w) { return wrappers[w].gated(); });
    if (all_gated)
      gate(native, wrappers[*claimants.begin()]);
  }
  return gates;
}

void apply_option_gating(const std::vector<OptionGate> &gates, Reachability &reach) {
  std::vector<bool> gated(reach.files.size(), false);
  for (const OptionGate &gate : gates) {
    reach.files[gate.file].status = ReachStatus::OptionOnly;
    gated[gate.file] = true;
  }
  drop_from_runs(gated, reach);
}

} // namespace mpsaudit
