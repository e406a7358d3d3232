#include "assess/reachability.h"

#include <algorithm>
#include <array>

#include "assess/assess_policy.h"
#include "assess/entry_points.h"
#include "assess/roles.h"
#include "core/text.h"

namespace mpsaudit {

std::string_view directory_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

std::string as_module_path(std::string_view dotted_name) {
  std::string path(dotted_name);
  std::replace(path.begin(), path.end(), '.', '/');
  return path;
}

namespace {

std::string join_path(std::string_view directory, std::string_view rest) {
  return directory.empty() ? std::string(rest) : std::string(directory) + "/" + std::string(rest);
}

bool is_python_module(const ProjectFile &file) {
  return file.kind == FileKind::Python && ends_with(file.path, ".py");
}

// "a/b/c.py" -> {a, b, c}; "a/b/__init__.py" -> {a, b}.
std::vector<std::string_view> module_parts(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    const auto slash = path.find('/', start);
    const auto end = slash == std::string_view::npos ? path.size() : slash;
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  if (parts.empty())
    return parts;
  if (parts.back() == "__init__.py")
    parts.pop_back();
  else
    parts.back().remove_suffix(3); // ".py"
  return parts;
}

std::string dotted(const std::vector<std::string_view> &parts, std::size_t from) {
  std::string name;
  for (std::size_t i = from; i < parts.size(); ++i)
    name += (i > from ? "." : "") + std::string(parts[i]);
  return name;
}

// The top directory of a path ("" for a root file), for "same tree" tests.
std::string_view top_directory(std::string_view path) {
  const auto slash = path.find('/');
  return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

} // namespace

ModuleIndex::ModuleIndex(const std::vector<ProjectFile> &files) : files_(files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    by_path_.emplace(files[i].path, i);
    if (!ends_with(files[i].path, ".py"))
      continue;
    const auto parts = module_parts(files[i].path);
    for (std::size_t from = 0; from < parts.size(); ++from) {
      std::string name = dotted(parts, from);
      if (is_python_module(files[i]))
        by_name_[name].push_back(i);
      importable_.insert(std::move(name));
    }
  }
}

std::optional<std::size_t> ModuleIndex::file_of_path(std::string_view path) const {
  const auto found = by_path_.find(std::string(path));
  if (found == by_path_.end())
    return std::nullopt;
  return found->second;
}

std::optional<std::size_t> ModuleIndex::resolve(std::string_view name, std::size_t importer) const {
  std::string candidate(name);
  if (ends_with(candidate, ".*"))
    candidate.resize(candidate.size() - 2);
  while (!candidate.empty()) {
    // A name outside importable_ is no module of the tree under any directory.
    if (importable_.count(candidate) != 0)
      if (auto file = resolve_module(candidate, importer))
        return file;
    const auto dot = candidate.rfind('.');
    if (dot == std::string::npos)
      break;
    candidate.resize(dot);
  }
  return std::nullopt;
}

std::optional<std::size_t> ModuleIndex::resolve_module(const std::string &module,
                                                       std::size_t importer) const {
  const std::string_view importer_path = files_[importer].path;
  const auto module_file = [&](std::string_view base) -> std::optional<std::size_t> {
    if (auto file = file_of_path(join_path(base, as_module_path(module) + ".py")))
      return file;
    return file_of_path(join_path(base, as_module_path(module) + "/__init__.py"));
  };
  // A script's own directory is on sys.path; then the repository root.
  if (auto file = module_file(directory_of(importer_path)))
    return file;
  if (auto file = module_file({}))
    return file;
  // Below a source root (src/pkg, python/pkg, a sub-project): the file
  // that ends with the name, under a directory that is not itself a
  // package. A bare one-word module must also share the importer's tree,
  // so `import utils` never lands in an unrelated corner of the repository.
  const auto found = by_name_.find(module);
  if (found == by_name_.end())
    return std::nullopt;
  const bool one_word = module.find('.') == std::string::npos;
  std::optional<std::size_t> best;
  std::size_t best_depth = 0;
  for (const std::size_t file : found->second) {
    const std::string &path = files_[file].path;
    const std::size_t depth = static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
    const std::size_t name_parts = static_cast<std::size_t>(std::count(module.begin(), module.end(), '.')) +
                                   1 + (ends_with(path, "/__init__.py") ? 1 : 0);
    std::string_view root = path;
    for (std::size_t k = 0; k < name_parts && !root.empty(); ++k)
      root = directory_of(root);
    if (file_of_path(join_path(root, "__init__.py")))
      continue; // inside a package: not importable by this name
    if (one_word && !ends_with(path, "/__init__.py") && top_directory(path) != top_directory(importer_path))
      continue;
    if (!best || depth < best_depth) {
      best = file;
      best_depth = depth;
    }
  }
  return best;
}

std::vector<std::size_t> ModuleIndex::parent_packages(std::size_t file) const {
  std::vector<std::size_t> parents;
  std::string_view directory = directory_of(files_[file].path);
  if (ends_with(files_[file].path, "/__init__.py"))
    directory = directory_of(directory);
  while (!directory.empty()) {
    if (auto init = file_of_path(join_path(directory, "__init__.py")))
      parents.push_back(*init);
    else
      break; // a package's parents are packages; above a plain directory none run
    directory = directory_of(directory);
  }
  std::reverse(parents.begin(), parents.end());
  return parents;
}

std::optional<std::size_t> ModuleIndex::resolve_relative(std::string_view importer_path,
                                                         std::string_view name) const {
  // The dots climb from the importer's package: one dot is its own.
  const std::size_t dots = std::min(name.find_first_not_of('.'), name.size());
  std::string_view base = directory_of(importer_path);
  for (std::size_t level = 1; level < dots && !base.empty(); ++level)
    base = directory_of(base);
  const std::string module_base =
      name.size() > dots ? join_path(base, as_module_path(name.substr(dots))) : std::string(base);
  if (auto module = file_of_path(module_base + ".py"))
    return module;
  return file_of_path(join_path(module_base, "__init__.py"));
}

std::string relative_member(std::string_view module, std::string_view name) {
  const bool only_dots = module.find_first_not_of('.') == std::string_view::npos;
  return std::string(module) + (only_dots ? "" : ".") + std::string(name);
}

namespace {

// The guards of an import that a Mac skips or survives (ImportEdges::MacPath).
bool mac_skips(Guard guard) {
  return guard == Guard::CudaCheck || guard == Guard::ImportFallback || guard == Guard::PlatformCheck;
}

} // namespace

std::vector<std::vector<std::uint32_t>> build_module_graph(const std::vector<ProjectFile> &files,
                                                           const ModuleIndex &index, ImportEdges edge_kind) {
  std::vector<std::vector<std::uint32_t>> graph(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ProjectFile &file = files[i];
    if (file.kind != FileKind::Python && file.kind != FileKind::Notebook)
      continue;
    auto &edges = graph[i];
    const auto add = [&](std::size_t target) {
      if (target != i)
        edges.push_back(static_cast<std::uint32_t>(target));
    };
    // Importing a module runs its packages' __init__ first.
    if (is_python_module(file))
      for (const std::size_t parent : index.parent_packages(i))
        add(parent);
    for (const Fact &fact : file.facts.facts) {
      if (edge_kind == ImportEdges::MacPath && mac_skips(fact.guard))
        continue;
      // importlib.import_module("pkg.mod") with a literal is an import too.
      if (fact.kind == fact_kind::Call && fact.name == "importlib.import_module") {
        const Argument *module = fact.positional_argument(0);
        if (module && module->is_string && !starts_with(module->value, "."))
          if (auto target = index.resolve(module->value, i))
            add(*target);
        continue;
      }
      if (fact.kind != fact_kind::Import)
        continue;
      const std::string *relative = fact.attribute("relative");
      if (!relative) {
        if (auto target = index.resolve(fact.name, i))
          add(*target);
        continue;
      }
      // `from ..pkg.mod import a, b`: the module, then each name that is a
      // submodule.
      if (auto target = index.resolve_relative(file.path, fact.name))
        add(*target);
      if (const std::string *names = fact.attribute("names"))
        for_each_listed_name(*names, [&](std::string_view name) {
          if (auto target = index.resolve_relative(file.path, relative_member(fact.name, name)))
            add(*target);
        });
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  }
  return graph;
}

std::string_view to_string(ReachStatus status) {
  switch (status) {
  case ReachStatus::Reached:
    return "reached";
  case ReachStatus::BenchmarkOnly:
    return "benchmark-only";
  case ReachStatus::ExampleOnly:
    return "example-only";
  case ReachStatus::TestOnly:
    return "test-only";
  case ReachStatus::ContainerOnly:
    return "container-only";
  case ReachStatus::OptionalSubProject:
    return "optional-sub-project";
  case ReachStatus::OptionOnly:
    return "option-only";
  case ReachStatus::FallbackOnly:
    return "fallback-only";
  case ReachStatus::Unreached:
    return "unreached";
  case ReachStatus::NotCode:
    return "not-code";
  }
  return "not-code";
}

bool may_decide(ReachStatus status) {
  return status != ReachStatus::TestOnly && status != ReachStatus::ExampleOnly &&
         status != ReachStatus::ContainerOnly && status != ReachStatus::OptionalSubProject &&
         status != ReachStatus::OptionOnly && status != ReachStatus::FallbackOnly;
}

void apply_mac_path(const Reachability &mac_path, Reachability &reach) {
  std::vector<bool> fallback_only(reach.files.size(), false);
  for (std::size_t i = 0; i < reach.files.size() && i < mac_path.files.size(); ++i) {
    const ReachStatus full = reach.files[i].status, mac = mac_path.files[i].status;
    // Reached only through a fallback, or built by a sub-project that only a
    // fallback imports.
    if ((full == ReachStatus::Reached && mac != ReachStatus::Reached) ||
        (may_decide(full) && mac == ReachStatus::OptionalSubProject)) {
      reach.files[i].status = ReachStatus::FallbackOnly;
      fallback_only[i] = true;
    }
  }
  drop_from_runs(fallback_only, reach);
}

void drop_from_runs(const std::vector<bool> &dropped, Reachability &reach) {
  for (std::vector<std::uint32_t> &run : reach.runs)
    run.erase(std::remove_if(run.begin(), run.end(), [&](std::uint32_t file) { return dropped[file]; }),
              run.end());
}

std::vector<std::string> sub_project_roots(const std::vector<ProjectFile> &files) {
  std::vector<std::string> roots;
  for (const ProjectFile &file : files)
    if (file.kind == FileKind::SetupPy || file.kind == FileKind::Pyproject) {
      const std::string_view directory = directory_of(file.path);
      if (!directory.empty())
        roots.emplace_back(directory);
    }
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

std::string sub_project_of(std::string_view path, const std::vector<std::string> &roots) {
  // Walk up the path's directories: at most its depth lookups.
  std::string_view directory = directory_of(path);
  while (!directory.empty()) {
    if (std::binary_search(roots.begin(), roots.end(), directory, [](const auto &a, const auto &b) {
          return std::string_view(a) < std::string_view(b);
        }))
      return std::string(directory);
    directory = directory_of(directory);
  }
  return {};
}

bool is_container_file(std::string_view path, FileKind kind, const AssessPolicy &policy) {
  if (kind == FileKind::Dockerfile)
    return true;
  std::string_view directory = directory_of(path);
  while (!directory.empty()) {
    const auto slash = directory.rfind('/');
    const std::string name =
        to_lower(slash == std::string_view::npos ? directory : directory.substr(slash + 1));
    if (is_one_of(name, policy.container_directories))
      return true;
    directory = directory_of(directory);
  }
  return false;
}

namespace {

// Which kinds of entry reach a file, as bits.
enum ReachedBy : std::uint8_t {
  ByMain = 1,
  ByBenchmark = 2,
  ByExample = 4,
  ByTest = 8,
  ByContainer = 16,
  BySubProject = 32,
};

std::uint8_t reach_bit(const EntryPoint &entry) {
  switch (entry.scope) {
  case EntryScope::Main:
    return entry.purpose == EntryPurpose::Benchmark ? ByBenchmark : ByMain;
  case EntryScope::Test:
    return ByTest;
  case EntryScope::Example:
    return ByExample;
  case EntryScope::Container:
    return ByContainer;
  case EntryScope::SubProject:
    return BySubProject;
  }
  return ByMain;
}

// Native sources hang off the nearest directory above them that holds a
// Python module: the package whose extension builds them.
struct NativeAnchors {
  std::unordered_map<std::string, std::uint32_t> directory_id;
  std::vector<std::uint32_t> directory_of_file;           // by file; UINT32_MAX: none
  std::vector<std::vector<std::uint32_t>> natives_by_dir; // by directory id
};

NativeAnchors anchor_natives(const std::vector<ProjectFile> &files) {
  NativeAnchors anchors;
  anchors.directory_of_file.assign(files.size(), UINT32_MAX);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (is_python_module(files[i])) {
      const auto [it, inserted] = anchors.directory_id.emplace(
          std::string(directory_of(files[i].path)), static_cast<std::uint32_t>(anchors.directory_id.size()));
      anchors.directory_of_file[i] = it->second;
    }
  anchors.natives_by_dir.resize(anchors.directory_id.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!is_native_source(files[i].kind))
      continue;
    std::string_view directory = directory_of(files[i].path);
    while (true) {
      const auto found = anchors.directory_id.find(std::string(directory));
      if (found != anchors.directory_id.end()) {
        anchors.natives_by_dir[found->second].push_back(static_cast<std::uint32_t>(i));
        break;
      }
      if (directory.empty())
        break;
      directory = directory_of(directory);
    }
  }
  return anchors;
}

// Scripts that write C/C++/CUDA sources (the policy's code_generator_lines):
// a generator beside the kernels it writes does not run them, so reaching
// it reaches no native source of its directory.
std::vector<bool> code_generators(const std::vector<ProjectFile> &files, const AssessPolicy &policy) {
  std::vector<bool> generators(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i)
    generators[i] =
        files[i].kind == FileKind::Python && !policy.generated_source_line(files[i].facts.facts).empty();
  return generators;
}

} // namespace

Reachability compute_reachability(const std::vector<ProjectFile> &files,
                                  const std::vector<EntryPoint> &entries,
                                  const std::vector<std::vector<std::uint32_t>> &graph,
                                  const AssessPolicy &policy) {
  Reachability reach;
  reach.files.resize(files.size());
  reach.runs.resize(entries.size());
  std::unordered_map<std::string, std::uint32_t> file_index;
  for (std::size_t i = 0; i < files.size(); ++i)
    file_index.emplace(files[i].path, static_cast<std::uint32_t>(i));
  const NativeAnchors anchors = anchor_natives(files);
  const std::vector<bool> generators = code_generators(files, policy);

  std::vector<std::uint8_t> reached_by(files.size(), 0);
  std::vector<std::int64_t> first_parent(files.size(), -1);
  // One traversal per traced entry; `stamp` marks what this one has seen,
  // so nothing is cleared between entries.
  std::vector<std::uint32_t> seen(files.size(), 0), directory_seen(anchors.natives_by_dir.size(), 0);
  std::vector<std::int64_t> parent(files.size(), -1);
  std::uint32_t stamp = 0;
  for (std::size_t e = 0; e < entries.size() && e < kMaxTracedEntries; ++e) {
    const auto start = file_index.find(entries[e].path);
    if (start == file_index.end())
      continue;
    ++stamp;
    reach.traced_entries = e + 1;
    std::vector<std::uint32_t> &run = reach.runs[e];
    const auto visit = [&](std::uint32_t file, std::int64_t from) {
      if (seen[file] == stamp)
        return;
      seen[file] = stamp;
      parent[file] = from;
      run.push_back(file);
    };
    visit(start->second, -1);
    for (std::size_t head = 0; head < run.size(); ++head) {
      const std::uint32_t file = run[head];
      for (const std::uint32_t next : graph[file])
        visit(next, file);
      const std::uint32_t directory = anchors.directory_of_file[file];
      if (directory != UINT32_MAX && directory_seen[directory] != stamp && !generators[file]) {
        directory_seen[directory] = stamp;
        for (const std::uint32_t native : anchors.natives_by_dir[directory])
          visit(native, file);
      }
    }
    const std::uint8_t bit = reach_bit(entries[e]);
    for (const std::uint32_t file : run) {
      FileReach &record = reach.files[file];
      if (record.entry_count == 0)
        first_parent[file] = parent[file];
      ++record.entry_count;
      if (record.entries.size() < kMaxEntriesPerFile)
        record.entries.push_back(static_cast<std::uint32_t>(e));
      reached_by[file] |= bit;
    }
  }

  // A sub-project no main entry reaches is optional: installing the main
  // package never builds it.
  const std::vector<std::string> roots = sub_project_roots(files);
  bool any_main = false;
  for (const EntryPoint &entry : entries)
    any_main = any_main || entry.scope == EntryScope::Main;
  std::vector<std::string> reached_roots;
  std::vector<std::string> root_of(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    root_of[i] = sub_project_of(files[i].path, roots);
    if (!root_of[i].empty() && (reached_by[i] & (ByMain | ByBenchmark)))
      reached_roots.push_back(root_of[i]);
  }
  for (const std::string &root : roots)
    if (any_main && std::find(reached_roots.begin(), reached_roots.end(), root) == reached_roots.end())
      reach.optional_sub_projects.push_back(root);

  for (std::size_t i = 0; i < files.size(); ++i) {
    FileReach &record = reach.files[i];
    const std::uint8_t by = reached_by[i];
    const bool code = files[i].kind == FileKind::Python || files[i].kind == FileKind::Notebook ||
                      is_native_source(files[i].kind);
    if (!root_of[i].empty() &&
        std::find(reach.optional_sub_projects.begin(), reach.optional_sub_projects.end(), root_of[i]) !=
            reach.optional_sub_projects.end())
      record.status = ReachStatus::OptionalSubProject;
    else if (by & (ByMain | BySubProject))
      record.status = ReachStatus::Reached;
    else if (by & ByBenchmark)
      record.status = ReachStatus::BenchmarkOnly;
    else if ((by & ByContainer) || is_container_file(files[i].path, files[i].kind, policy))
      record.status = ReachStatus::ContainerOnly;
    else if (by & ByExample)
      record.status = ReachStatus::ExampleOnly;
    else if ((by & ByTest) || (code && is_test_file(files[i].path, policy)))
      record.status = ReachStatus::TestOnly; // a test no entry imports: the test runner runs it
    else
      record.status = code ? ReachStatus::Unreached : ReachStatus::NotCode;
    if (record.entry_count > 0) {
      for (std::int64_t at = static_cast<std::int64_t>(i); at >= 0 && record.chain.size() <= files.size();
           at = first_parent[static_cast<std::size_t>(at)])
        record.chain.push_back(static_cast<std::uint32_t>(at));
      std::reverse(record.chain.begin(), record.chain.end());
    }
  }
  return reach;
}

} // namespace mpsaudit
