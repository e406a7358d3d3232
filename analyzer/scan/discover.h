// Discovery: which files a scan reads. Inside a git work tree the files git
// tracks (plus untracked, non-ignored ones), so .gitignore is honoured;
// elsewhere a walk of the tree that never follows directory symlinks.
#pragma once

#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"

namespace mpsaudit {

struct DiscoveredFile {
  std::string path;          // relative to the scan root, '/'-separated
  std::string absolute_path; // for opening
  FileKind kind = FileKind::Unknown;
};

struct Discovery {
  std::vector<DiscoveredFile> files; // sorted by path
  std::vector<Diagnostic> diagnostics;
  bool used_git = false;
};

// Directories never descended into: tool caches and virtual environments.
bool is_excluded_directory(std::string_view name);

Discovery discover_files(const std::string &root, bool use_git);

} // namespace mpsaudit
