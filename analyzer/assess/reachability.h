// Reachability: which entry points (assess/entry_points.h) run which files.
//
// The repository's own Python imports (absolute, relative, package
// `__init__` re-exports) form a module graph; each entry point's import
// closure is what it runs. C/C++/CUDA and Metal sources belong to the nearest
// directory above them that holds a Python module: an entry that reaches that
// directory reaches them (the extension its package builds). Everything is
// linear in the files and imports, times at most kMaxTracedEntries closures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/project_pass.h"

namespace mpsaudit {

struct EntryPoint;

// "a/b/c.py" -> "a/b"; "c.py" -> "".
std::string_view directory_of(std::string_view path);

// "pkg.mod" -> "pkg/mod".
std::string as_module_path(std::string_view dotted_name);

// Python modules by dotted name and by path.
class ModuleIndex {
public:
  explicit ModuleIndex(const std::vector<ProjectFile> &files);

  std::optional<std::size_t> file_of_path(std::string_view path) const;
  // The file an absolute dotted name imports from `importer`'s point of view
  // ("pkg.mod.symbol" -> pkg/mod.py): the longest prefix that names a
  // module, preferring one beside the importer (a script's own directory is
  // on sys.path), then the one nearest the root. Null when the name is not
  // the repository's (torch, numpy).
  std::optional<std::size_t> resolve(std::string_view dotted, std::size_t importer) const;
  // The module a relative import names from `importer_path` (".mod",
  // "..pkg.mod", "."): mod.py or mod/__init__.py. Null when not in the tree.
  std::optional<std::size_t> resolve_relative(std::string_view importer_path, std::string_view name) const;
  // The package `__init__.py` files a module import runs first (pkg/ and
  // pkg/sub/ for pkg/sub/mod.py), innermost last.
  std::vector<std::size_t> parent_packages(std::size_t file) const;

private:
  // The file `module` (a whole dotted name) is from `importer`, if any.
  std::optional<std::size_t> resolve_module(const std::string &module, std::size_t importer) const;

  const std::vector<ProjectFile> &files_;
  std::unordered_map<std::string, std::size_t> by_path_;
  // Every dotted suffix of every module path ("src.pkg.mod", "pkg.mod",
  // "mod") -> the files that end so.
  std::unordered_map<std::string, std::vector<std::size_t>> by_name_;
  // The dotted suffixes of every path that ends in .py, whatever its kind
  // (a setup.py is importable too): a name outside it cannot be the tree's,
  // which settles torch.nn.functional without a lookup per directory.
  std::unordered_set<std::string> importable_;
};

// The relative name of `name` imported from `module`: (".", "x") -> ".x",
// (".pkg", "x") -> ".pkg.x".
std::string relative_member(std::string_view module, std::string_view name);

// Which imports make an edge: all of them, or only those a Mac takes. An
// import behind a CUDA test, an ImportError fallback or a Linux-only platform
// test is one a Mac skips or survives: the code on its other side runs only
// where CUDA is.
enum class ImportEdges : std::uint8_t { All, MacPath };

// file -> the repository files it imports (its parent packages included).
std::vector<std::vector<std::uint32_t>> build_module_graph(const std::vector<ProjectFile> &files,
                                                           const ModuleIndex &index,
                                                           ImportEdges edges = ImportEdges::All);

// How a file relates to the entry points.
enum class ReachStatus : std::uint8_t {
  Reached,            // a main entry point runs it
  BenchmarkOnly,      // only benchmark entry points run it
  ExampleOnly,        // only examples and docs notebooks run it
  TestOnly,           // only tests run it
  ContainerOnly,      // only a Dockerfile's commands run it, or it is container build files
  OptionalSubProject, // a sub-project with its own setup.py/pyproject that no main entry imports
  OptionOnly,         // main entries import it, but use it only behind an option (assess/option_gating.h)
  FallbackOnly,       // main entries import it only where a Mac takes the fallback (ImportEdges::MacPath)
  Unreached,          // code no entry point imports
  NotCode,            // manifests, shell, prose: not part of an import closure
};
std::string_view to_string(ReachStatus status); // "reached", "benchmark-only", ...
// Whether findings in such a file may decide the repository's verdict.
bool may_decide(ReachStatus status);

struct FileReach {
  ReachStatus status = ReachStatus::NotCode;
  std::vector<std::uint32_t> entries; // indices into the entry list, main entries first (capped)
  std::uint32_t entry_count = 0;      // all entries that reach it
  // The shortest chain from the first entry that reaches it: file indices,
  // the entry first and this file last; empty when unreached.
  std::vector<std::uint32_t> chain;
};

struct Reachability {
  std::vector<FileReach> files;                   // by ProjectFile index
  std::vector<std::vector<std::uint32_t>> runs;   // by entry: the files it runs (closure)
  std::vector<std::string> optional_sub_projects; // their directories
  std::size_t traced_entries = 0;                 // entries whose closure was computed
};

// At most this many entry closures are traced (main entries first), which
// keeps the analysis linear in the size of the repository.
inline constexpr std::size_t kMaxTracedEntries = 256;
// At most this many entries are listed per file.
inline constexpr std::size_t kMaxEntriesPerFile = 8;

// Directories below the root with their own setup.py or pyproject.toml.
std::vector<std::string> sub_project_roots(const std::vector<ProjectFile> &files);
// The deepest sub-project root that holds `path`, or "".
std::string sub_project_of(std::string_view path, const std::vector<std::string> &roots);
struct AssessPolicy; // assess/assess_policy.h

// Dockerfiles and files under one of the policy's container directories
// (docker/, containers/).
bool is_container_file(std::string_view path, FileKind kind, const AssessPolicy &policy);

// What each entry runs; a test file (as the policy places tests) that no
// entry imports is one the test runner runs.
Reachability compute_reachability(const std::vector<ProjectFile> &files,
                                  const std::vector<EntryPoint> &entries,
                                  const std::vector<std::vector<std::uint32_t>> &graph,
                                  const AssessPolicy &policy);

// Takes the files `dropped` marks (by ProjectFile index) out of every entry's run.
void drop_from_runs(const std::vector<bool> &dropped, Reachability &reach);

// Marks FallbackOnly the files that main entries reach in `reach` but not on
// `mac_path` (the same entries over ImportEdges::MacPath), and those of a
// sub-project that only such files import; takes them out of every entry's
// run.
void apply_mac_path(const Reachability &mac_path, Reachability &reach);

} // namespace mpsaudit
