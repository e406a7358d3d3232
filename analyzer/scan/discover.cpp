#include "scan/discover.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "core/process.h"
#include "core/text.h"

namespace mpsaudit {
namespace fs = std::filesystem;

bool is_excluded_directory(std::string_view name) {
  static const std::array<std::string_view, 13> excluded{
      ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache",
      ".pytest_cache", "site-packages", ".ipynb_checkpoints", ".eggs"};
  return std::find(excluded.begin(), excluded.end(), name) != excluded.end();
}

namespace {

// The whole /bin/sh command line is one argument to exec, which Linux caps at
// 128 KiB (MAX_ARG_STRLEN); longer candidate lists take the full listing.
constexpr std::size_t kMaxPathspecBytes = 64 * 1024;

void add_nul_separated(const std::string &output, std::set<std::string> &paths) {
  std::size_t start = 0;
  while (start < output.size()) {
    const std::size_t end = output.find('\0', start);
    const std::size_t stop = end == std::string::npos ? output.size() : end;
    if (stop > start)
      paths.emplace(output.substr(start, stop - start));
    start = stop + 1;
  }
}

// Runs `git ls-files` in `root`; false when root is not in a work tree. With
// `only`, the listing is restricted to those paths: git then reads the index
// and the untracked directories on the way to them instead of the whole tree.
bool git_list_files(const std::string &root, const std::vector<std::string> *only,
                    std::vector<std::string> &paths) {
  std::string inside;
  if (!run_command("git -C " + shell_quote(root) + " rev-parse --is-inside-work-tree 2>/dev/null", inside) ||
      inside.rfind("true", 0) != 0)
    return false;
  std::set<std::string> unique; // --cached and --others can overlap on conflicts
  bool listed = false;
  if (only) {
    if (only->empty()) {
      paths.clear();
      return true; // no pathspec would mean "everything"
    }
    std::string pathspecs;
    for (const auto &path : *only)
      pathspecs += " " + shell_quote(path);
    std::string output;
    // Literal pathspecs: names with '*', '?' or '[' mean themselves. When git
    // refuses a pathspec (one outside the repository), the full listing below
    // gives the answer a full scan would.
    listed = pathspecs.size() <= kMaxPathspecBytes &&
             run_command("git -C " + shell_quote(root) +
                             " --literal-pathspecs ls-files -z --cached --others --exclude-standard --" +
                             pathspecs + " 2>/dev/null",
                         output);
    if (listed)
      add_nul_separated(output, unique);
  }
  if (!listed) {
    std::string output;
    if (!run_command("git -C " + shell_quote(root) +
                         " ls-files -z --cached --others --exclude-standard 2>/dev/null",
                     output))
      return false;
    add_nul_separated(output, unique);
  }
  paths.clear();
  if (!only) {
    paths.assign(unique.begin(), unique.end());
    return true;
  }
  // A pathspec naming a directory (a submodule, say) matches the files under
  // it: keep exact matches only, as the full listing filtered would.
  for (const auto &path : *only)
    if (unique.count(path))
      paths.push_back(path);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return true;
}

void add_candidate(Discovery &discovery, const fs::path &absolute, const std::string &relative) {
  const FileKind kind = classify_path(relative);
  if (kind == FileKind::Unknown)
    return;
  std::error_code error;
  const fs::file_status link_status = fs::symlink_status(absolute, error);
  if (error)
    return;
  if (fs::is_symlink(link_status)) {
    const fs::file_status target = fs::status(absolute, error);
    if (error || !fs::exists(target)) {
      discovery.diagnostics.push_back({DiagnosticLevel::Warning, relative, 0, "broken-symlink",
                                       "symbolic link is dangling or loops; skipped"});
      return;
    }
    if (!fs::is_regular_file(target))
      return;
  } else if (!fs::is_regular_file(link_status)) {
    return;
  }
  discovery.files.push_back({relative, absolute.string(), kind});
}

// Walks `root` without following directory symlinks, so loops cannot occur;
// every unreadable directory and odd link is named in a diagnostic.
void walk_tree(const fs::path &root, Discovery &discovery) {
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    const fs::path directory = pending.back();
    pending.pop_back();
    std::error_code error;
    fs::directory_iterator it(directory, error);
    // Lexical, never through the file system: a symlink loop must not make
    // a path unnameable.
    const std::string relative_dir = directory == root ? "." : directory.lexically_relative(root).generic_string();
    if (error) {
      discovery.diagnostics.push_back({DiagnosticLevel::Error, relative_dir, 0, "unreadable-directory",
                                       "cannot read directory: " + error.message()});
      continue;
    }
    for (fs::directory_iterator end; it != end; it.increment(error)) {
      if (error) {
        discovery.diagnostics.push_back({DiagnosticLevel::Error, relative_dir, 0, "unreadable-directory",
                                         "error while listing directory: " + error.message()});
        break;
      }
      const fs::path &path = it->path();
      const std::string name = path.filename().string();
      std::string relative = path.lexically_relative(root).generic_string();
      if (relative.empty())
        relative = path.generic_string();
      std::error_code status_error;
      const fs::file_status link_status = it->symlink_status(status_error);
      if (fs::is_symlink(link_status)) {
        const fs::file_status target = fs::status(path, status_error);
        if (status_error || !fs::exists(target)) {
          discovery.diagnostics.push_back({DiagnosticLevel::Warning, relative, 0, "broken-symlink",
                                           status_error ? "symbolic link cannot be resolved (" +
                                                              status_error.message() + "); skipped"
                                                        : "symbolic link is dangling; skipped"});
          continue;
        }
        if (fs::is_directory(target)) {
          discovery.diagnostics.push_back({DiagnosticLevel::Note, relative, 0, "symlink-directory",
                                           "symbolic link to a directory not followed"});
          continue;
        }
        add_candidate(discovery, path, relative);
        continue;
      }
      if (fs::is_directory(link_status)) {
        if (!is_excluded_directory(name))
          pending.push_back(path);
        continue;
      }
      add_candidate(discovery, path, relative);
    }
  }
}

} // namespace

Discovery discover_files(const std::string &root_text, bool use_git, const std::vector<std::string> *only) {
  Discovery discovery;
  std::error_code error;
  const fs::path root(root_text);
  const fs::file_status status = fs::status(root, error);
  if (error || !fs::exists(status)) {
    discovery.diagnostics.push_back({DiagnosticLevel::Error, root_text, 0, "not-found",
                                     "no such file or directory"});
    return discovery;
  }
  if (!fs::is_directory(status)) {
    // A single file: its name decides its kind; the path stays as given.
    const FileKind kind = classify_path(root.filename().string());
    if (kind == FileKind::Unknown)
      discovery.diagnostics.push_back({DiagnosticLevel::Note, root_text, 0, "unknown-kind",
                                       "no front end reads files of this kind; skipped"});
    else
      discovery.files.push_back({root.filename().generic_string(), root.string(), kind});
    return discovery;
  }
  std::vector<std::string> git_paths;
  if (use_git && git_list_files(root_text, only, git_paths)) {
    discovery.used_git = true;
    for (const auto &relative : git_paths) {
      // Honour our own exclusions too (vendored virtual environments).
      bool excluded = false;
      std::size_t start = 0;
      for (std::size_t slash; (slash = relative.find('/', start)) != std::string::npos; start = slash + 1)
        if (is_excluded_directory(std::string_view(relative).substr(start, slash - start)))
          excluded = true;
      if (!excluded)
        add_candidate(discovery, root / relative, relative);
    }
  } else {
    walk_tree(root, discovery);
    if (only) {
      // The walk's diagnostics stay as they were: an unreadable directory
      // may hide a candidate.
      const std::set<std::string> wanted(only->begin(), only->end());
      discovery.files.erase(
          std::remove_if(discovery.files.begin(), discovery.files.end(),
                         [&](const DiscoveredFile &file) { return !wanted.count(file.path); }),
          discovery.files.end());
    }
  }
  std::sort(discovery.files.begin(), discovery.files.end(),
            [](const DiscoveredFile &a, const DiscoveredFile &b) { return a.path < b.path; });
  return discovery;
}

} // namespace mpsaudit
