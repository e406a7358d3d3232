#include "frontend/manifest/dependency_pass.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/package_knowledge.h"

namespace mpsaudit {
namespace {

bool is_manifest(FileKind kind) {
  return kind == FileKind::Requirements || kind == FileKind::Pyproject || kind == FileKind::SetupPy ||
         kind == FileKind::SetupCfg || kind == FileKind::CondaEnv;
}

bool is_code(FileKind kind) {
  return kind == FileKind::Python || kind == FileKind::Notebook || kind == FileKind::SetupPy;
}

// Declarations that say "the code needs this at run time".
bool is_runtime_declaration(const Fact &fact) {
  if (fact.kind != fact_kind::Dependency || fact.attribute("group"))
    return false;
  const std::string *source = fact.attribute("source");
  if (!source)
    return false;
  return *source == "requirements" || *source == "pyproject" || *source == "poetry" ||
         *source == "setup-py" || *source == "setup-cfg" || *source == "conda-pip";
}

// requirements-dev.txt, requirements/test.txt, docs/requirements.txt: the
// requirements-file form of a development group.
bool is_development_file(const std::string &path) {
  static const std::set<std::string, std::less<>> words{
      "dev", "develop", "development", "test",  "tests",      "testing",  "lint",  "style",
      "doc", "docs",    "ci",          "bench", "benchmarks", "examples", "typing"};
  const std::string lower = to_lower(path);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lower.size(); ++i)
    if (i == lower.size() || std::string_view("/-_.").find(lower[i]) != std::string_view::npos) {
      if (words.count(std::string_view(lower).substr(start, i - start)))
        return true;
      start = i + 1;
    }
  return false;
}

std::string top_module(std::string_view name) {
  return std::string(name.substr(0, name.find('.')));
}

} // namespace

void cross_check_dependencies(std::vector<ProjectFile> &files) {
  const manifest::PackageKnowledge &knowledge = manifest::package_knowledge();
  // Lower-case module -> the first distribution (in knowledge-base order,
  // glob entries left out) that provides it: looked up for every import of
  // every file, so built once rather than searched each time.
  std::unordered_map<std::string, const manifest::PackageEntry *> provider_of;
  for (const auto &entry : knowledge.packages)
    if (entry.name.find('*') == std::string::npos)
      for (const auto &provided : entry.imports)
        provider_of.try_emplace(to_lower(provided), &entry);

  // Modules the project itself provides: every directory and file stem on
  // the way to a Python file (src/pkg/mod.py gives src, pkg, mod).
  std::set<std::string> local_modules;
  std::set<std::string> imported;
  bool has_code = false;
  for (const ProjectFile &file : files) {
    if (!is_code(file.kind))
      continue;
    has_code = true;
    std::string_view path = file.path;
    std::size_t start = 0;
    while (start < path.size()) {
      const auto slash = path.find('/', start);
      std::string_view part =
          path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
      const auto dot = part.find('.');
      local_modules.insert(to_lower(part.substr(0, dot)));
      if (slash == std::string_view::npos)
        break;
      start = slash + 1;
    }
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == fact_kind::Import && !starts_with(fact.name, "."))
        imported.insert(to_lower(top_module(fact.name)));
  }

  std::set<std::string> declared_modules;
  bool has_declarations = false;
  for (const ProjectFile &file : files) {
    if (!is_manifest(file.kind))
      continue;
    for (const Fact &fact : file.facts.facts)
      if (is_runtime_declaration(fact)) {
        has_declarations = true;
        for (const auto &module : knowledge.imports_of(fact.name))
          declared_modules.insert(to_lower(module));
      }
  }
  if (!has_code || !has_declarations)
    return;

  // Undeclared imports by module: where the reported one is and how many
  // other files import the module too.
  struct Undeclared {
    ProjectFile *file;
    std::size_t added_index; // among the facts the pass adds to `file`
    std::size_t other_files;
  };
  std::map<std::string, Undeclared> undeclared;
  std::map<const ProjectFile *, std::size_t> facts_before; // where each file's added facts start
  for (ProjectFile &file : files) {
    std::vector<Fact> added;
    facts_before[&file] = file.facts.facts.size();
    if (is_manifest(file.kind) && !(file.kind == FileKind::Requirements && is_development_file(file.path))) {
      std::set<std::string> reported;
      for (const Fact &fact : file.facts.facts) {
        // Optional extras often serve optional code paths: they count as
        // declared, but are not reported when nothing imports them.
        if (!is_runtime_declaration(fact) || reported.count(fact.name) || fact.attribute("extra") ||
            fact.attribute("optional"))
          continue;
        const auto modules = knowledge.imports_of(fact.name);
        if (modules.empty())
          continue; // a tool or runtime library, never imported
        bool used = false;
        std::string expected;
        for (const auto &module : modules) {
          used = used || imported.count(to_lower(module)) > 0;
          expected += (expected.empty() ? "" : ", ") + module;
        }
        if (used)
          continue;
        reported.insert(fact.name);
        Fact note = fact;
        note.kind = std::string(manifest_fact_kind::UnusedDependency);
        note.arguments.clear();
        note.set_attribute("imports", expected);
        added.push_back(std::move(note));
      }
    }
    if (is_code(file.kind)) {
      std::set<std::string> seen_here;
      for (const Fact &fact : file.facts.facts) {
        if (fact.kind != fact_kind::Import || starts_with(fact.name, "."))
          continue;
        const std::string module = top_module(fact.name);
        // Module names compare case-insensitively: tensorboardx provides
        // tensorboardX, and declared names are lower case after PEP 503.
        const std::string lower = to_lower(module);
        if (seen_here.count(module) || local_modules.count(lower) || declared_modules.count(lower))
          continue;
        // Only modules the knowledge base can attribute to a distribution:
        // anything else may be the standard library or a local module.
        const auto found = provider_of.find(lower);
        if (found == provider_of.end())
          continue;
        const manifest::PackageEntry *provider = found->second;
        seen_here.insert(module);
        // One finding per package, at its first import; the others are counted.
        const auto [first, is_first] = undeclared.try_emplace(module, Undeclared{&file, added.size(), 0});
        if (!is_first) {
          ++first->second.other_files;
          continue;
        }
        Fact note = fact_at(fact, std::string(manifest_fact_kind::UndeclaredImport), module);
        note.set_attribute("distribution", provider->name);
        note.set_attribute("value", provider->name);
        added.push_back(std::move(note));
      }
    }
    append_facts(file, std::move(added));
  }
  for (const auto &[module, where] : undeclared)
    where.file->facts.facts[facts_before[where.file] + where.added_index].set_attribute(
        "more", where.other_files == 0 ? std::string()
                                       : " (imported in " + counted(where.other_files, "more file") + ")");
}

FactRetention dependency_pass_retention(const Fact &fact) {
  return fact.kind == fact_kind::Import ? FactRetention::NameOnly : FactRetention::Keep;
}

} // namespace mpsaudit
