#include "frontend/manifest/local_import_pass.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/package_knowledge.h"
#include "frontend/manifest/python_imports.h"

namespace mpsaudit {
namespace {

// What a module's top level cannot do without, and where it says so.
struct Need {
  std::string what;        // "triton", or the extension's module
  std::string needed_at;   // "pkg/ops/x.py:3"
  std::string why_missing; // for the message
};

// The dotted names a Python file is imported by: pkg/ops/x.py is pkg.ops.x,
// pkg/__init__.py is pkg, and src/pkg/x.py is both src.pkg.x and pkg.x.
std::vector<std::string> module_names(std::string_view path) {
  if (!ends_with(path, ".py"))
    return {};
  path.remove_suffix(3);
  std::string dotted;
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, slash - start);
    if (!is_ascii_identifier(part))
      return {};
    dotted += (dotted.empty() ? "" : ".") + std::string(part);
    start = slash + 1;
  }
  if (dotted == "__init__")
    return {};
  if (ends_with(dotted, ".__init__"))
    dotted.resize(dotted.size() - std::string_view(".__init__").size());
  std::vector<std::string> names{dotted};
  for (const std::string_view source_root : {"src.", "python."})
    if (starts_with(dotted, source_root) && dotted.size() > source_root.size())
      names.push_back(dotted.substr(source_root.size()));
  return names;
}

bool runs_on_import(const Fact &fact) {
  return fact.scope.empty() && fact.guard == Guard::None;
}

// What `file`'s top level needs that a Mac cannot have, if anything.
std::optional<Need> top_level_need(const ProjectFile &file, const std::set<std::string> &unsupported,
                                   const std::map<std::string, std::size_t> &tree_modules) {
  for (const Fact &fact : file.facts.facts) {
    if (!runs_on_import(fact))
      continue;
    const auto where = [&] { return file.path + ":" + std::to_string(fact.span.line); };
    if (fact.kind == kCudaExtensionImportFact)
      return Need{fact.name, where(), "a CUDA extension that only nvcc builds"};
    if (fact.kind != fact_kind::Import || fact.attribute("relative"))
      continue;
    const std::string top = fact.name.substr(0, fact.name.find('.'));
    if (unsupported.count(top) && !tree_modules.count(top)) // the tree's own copy is read instead
      return Need{top, where(), "a package with no Mac build"};
  }
  return std::nullopt;
}

// The tree module an imported name reaches: the longest dotted prefix that
// is one (`pkg.ops.x.FusedNorm` is pkg.ops.x).
const std::pair<const std::string, std::size_t> *
tree_module_of(const std::map<std::string, std::size_t> &tree_modules, std::string name) {
  for (;;) {
    if (const auto found = tree_modules.find(name); found != tree_modules.end())
      return &*found;
    const auto dot = name.rfind('.');
    if (dot == std::string::npos)
      return nullptr;
    name.resize(dot);
  }
}

} // namespace

void find_local_cuda_only_imports(std::vector<ProjectFile> &files) {
  std::map<std::string, std::size_t> tree_modules; // dotted name -> index in files
  for (std::size_t i = 0; i < files.size(); ++i)
    if (files[i].kind == FileKind::Python)
      for (const std::string &name : module_names(files[i].path))
        tree_modules.try_emplace(name, i);
  if (tree_modules.empty())
    return;
  const std::set<std::string> unsupported = manifest::modules_without_mac_support();
  std::map<std::size_t, std::optional<Need>> needs;
  for (const auto &[name, index] : tree_modules)
    if (!needs.count(index))
      needs.emplace(index, top_level_need(files[index], unsupported, tree_modules));

  for (ProjectFile &file : files) {
    if (!is_python_code(file.kind) || is_test_module(file.path))
      continue;
    std::vector<Fact> added;
    std::set<std::tuple<std::uint32_t, std::string>> reported;
    for (const Fact &fact : file.facts.facts) {
      const bool required = fact.kind == fact_kind::RequiredImport;
      if (fact.kind != fact_kind::Import && !required)
        continue;
      for (const std::string &module : imported_modules(file, fact)) {
        const auto *target = tree_module_of(tree_modules, module);
        if (!target || &files[target->second] == &file)
          continue;
        const std::optional<Need> &need = needs.at(target->second);
        if (!need || !reported.emplace(fact.span.line, target->first).second)
          continue;
        Fact note = fact_at(fact, std::string(kLocalCudaOnlyImportFact), target->first);
        note.set_attribute("value", need->what);
        note.set_attribute("needed_at", need->needed_at);
        note.set_attribute("why_missing", need->why_missing);
        note.set_attribute("effect", required ? "this test raises when the import failed, as it does on a Mac"
                                              : "this import raises ImportError on a Mac");
        if (const std::string *option = fact.attribute("option"))
          note.set_attribute("option", *option);
        added.push_back(std::move(note));
      }
    }
    append_facts(file, std::move(added));
  }
}

FactRetention local_import_retention(const Fact &fact) {
  return fact.kind == fact_kind::Import || fact.kind == fact_kind::RequiredImport ||
                 fact.kind == kCudaExtensionImportFact
             ? FactRetention::Keep
             : FactRetention::Drop;
}

} // namespace mpsaudit
