// Listing the files of a tree. Inside a git work tree the result is what
// `git ls-files --cached --others --exclude-standard` would list (tracked
// files, even ignored ones, plus untracked files that .gitignore,
// .git/info/exclude and the user's global excludes file do not ignore),
// computed in-process: git is never run, because running git in a scanned
// repository runs what its .git/config names (core.fsmonitor, say). The
// ignored entries are listed as skipped. A `.git` without a readable index
// (a fresh `git init`, or a few files made to look like a repository) is no
// work tree here: its ignore files are not applied. Elsewhere, or without
// git, every file. Directory symlinks are never followed, nor is a tracked
// path through one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/diagnostic.h"
#include "workflow/git_repository.h"

namespace mpsaudit {

enum class EntryType { Regular, Symlink, Directory, Other };

struct WorkTreeFile {
  std::string path;                    // relative to the listed root, '/'-separated
  EntryType type = EntryType::Regular; // as lstat sees it: a symlink is not resolved
  bool tracked = false;                // in the git index
};

// An entry not listed, with why: "excluded-directory" (a virtual
// environment or tool cache, not entered), "nested-repository" (a submodule
// or another repository inside this one, which git lists as one entry) or
// "gitignored" (a file or directory that .gitignore, info/exclude or the
// global excludes file ignores; a directory is one entry, not entered; "."
// when the listed root itself is ignored).
struct WorkTreeSkip {
  std::string path;
  std::string reason;
};

struct WorkTreeListing {
  std::vector<WorkTreeFile> files; // in no particular order
  std::vector<WorkTreeSkip> skipped;
  std::vector<Diagnostic> diagnostics;     // unreadable directories, index or ignore files
  std::optional<GitRepository> repository; // set when git's view was used
  GitIndex index;                          // the index that view was read from
  std::string index_error;                 // why a work tree's index could not be read
};

struct WorkTreeOptions {
  bool use_git = true;
  // Only these paths (relative to the root, '/'-separated): in a work tree
  // nothing else is read. Without git's view the whole tree is still
  // listed, and the caller keeps what it wants.
  const std::vector<std::string> *only = nullptr;
  // Names of directories never entered (virtual environments, caches).
  bool (*excluded_directory)(std::string_view name) = nullptr;
};

WorkTreeListing list_work_tree(const std::filesystem::path &root, const WorkTreeOptions &options);

// Whether every directory on the way to a path (relative to `root`) is a
// real directory: a tracked path through a symlink would lead out of the
// tree. Each directory is looked at once.
class RealDirectories {
public:
  explicit RealDirectories(std::filesystem::path root) : root_(std::move(root)) {}
  bool reachable(const std::string &path);

private:
  std::filesystem::path root_;
  std::unordered_map<std::string, bool> known_;
};

// Whether `path` is a path git could track: relative, no empty, "." or ".."
// component, and no ".git" component. Index entries that are not are
// ignored, as git refuses them.
bool is_valid_tracked_path(std::string_view path);

} // namespace mpsaudit
