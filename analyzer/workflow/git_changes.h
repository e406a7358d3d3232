// Changed files through git, for `scan --changed-since REV` and `--staged`.
#pragma once

#include <set>
#include <string>

namespace mpsaudit {

struct ChangedFiles {
  bool ok = false;
  std::string error;           // why git could not answer
  std::set<std::string> paths; // relative to the scan root, '/'-separated
};

// Files that differ from `revision` in the work tree (committed since, staged
// or not), plus untracked files that are not ignored. Deleted files are left
// out: there is nothing to scan.
ChangedFiles changed_since(const std::string &root, const std::string &revision);
// Files added, copied, modified or renamed in the index (what a commit would
// record), as pre-commit sees them.
ChangedFiles staged_files(const std::string &root);

// `root` relative to the top of its work tree, with a trailing '/' ("" at the
// top, or outside a work tree).
std::string git_show_prefix(const std::string &root);

// True when `directory` is inside a git work tree.
bool inside_git_work_tree(const std::string &directory);

} // namespace mpsaudit
