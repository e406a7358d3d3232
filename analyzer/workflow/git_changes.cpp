#include "workflow/git_changes.h"

#include "core/process.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace mpsaudit {
namespace {

// Runs a git command; returns false when it fails. Output is NUL-separated.
bool run_git(const std::string &arguments, std::string &output, std::string &error) {
  if (!run_command("git " + arguments + " 2>&1", output)) {
    error = output.substr(0, output.find('\n'));
    if (error.empty())
      error = "git failed";
    return false;
  }
  return true;
}

void add_nul_separated(const std::string &output, std::set<std::string> &paths) {
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\0', start);
    if (end == std::string::npos)
      end = output.size();
    if (end > start)
      paths.insert(output.substr(start, end - start));
    start = end + 1;
  }
}

// The directory git should run in: the root itself, or a file's folder.
std::string work_directory(const std::string &root) {
  std::error_code error;
  if (std::filesystem::is_directory(root, error))
    return root;
  const std::string parent = std::filesystem::path(root).parent_path().string();
  return parent.empty() ? "." : parent;
}

} // namespace

ChangedFiles changed_since(const std::string &root, const std::string &revision) {
  ChangedFiles changed;
  const std::string directory = shell_quote(work_directory(root));
  if (revision.empty() || revision.front() == '-') {
    changed.error = "invalid revision '" + revision + "'";
    return changed;
  }
  std::string output;
  // Verify first so that a typo is reported as such, not as "no changes".
  if (!run_git("-C " + directory + " rev-parse --verify --quiet " + shell_quote(revision + "^{commit}"),
               output, changed.error)) {
    changed.error = "git does not know the revision '" + revision + "'" +
                    (changed.error.empty() || changed.error == "git failed" ? "" : ": " + changed.error);
    return changed;
  }
  output.clear();
  if (!run_git("-C " + directory + " diff --name-only -z --relative --no-renames --diff-filter=d " +
                   shell_quote(revision) + " --",
               output, changed.error))
    return changed;
  add_nul_separated(output, changed.paths);
  output.clear();
  if (!run_git("-C " + directory + " ls-files -z --others --exclude-standard", output, changed.error))
    return changed;
  add_nul_separated(output, changed.paths);
  changed.ok = true;
  return changed;
}

ChangedFiles staged_files(const std::string &root) {
  ChangedFiles changed;
  std::string output;
  if (!run_git("-C " + shell_quote(work_directory(root)) +
                   " diff --cached --name-only -z --relative --no-renames --diff-filter=d --",
               output, changed.error))
    return changed;
  add_nul_separated(output, changed.paths);
  changed.ok = true;
  return changed;
}

std::string git_show_prefix(const std::string &root) {
  std::string output, error;
  if (!run_git("-C " + shell_quote(work_directory(root)) + " rev-parse --show-prefix", output, error))
    return {};
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r'))
    output.pop_back();
  return output;
}

bool inside_git_work_tree(const std::string &directory) {
  std::string output, error;
  return run_git("-C " + shell_quote(work_directory(directory)) + " rev-parse --is-inside-work-tree", output,
                 error) &&
         output.rfind("true", 0) == 0;
}

} // namespace mpsaudit
