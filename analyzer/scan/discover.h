// Discovery: which files a scan reads. Inside a git work tree the files git
// tracks (plus untracked, non-ignored ones), so .gitignore is honoured, read
// in-process without running git (workflow/work_tree.h); elsewhere a walk of
// the tree that never follows directory symlinks. A scan that already knows
// its candidates (--staged, --changed-since, the files pre-commit names)
// asks about those paths only. Every entry found is either a file to read
// or a SkippedFile with its reason.
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
  // A checkpoint by its first bytes or a name other formats share (.pkl),
  // not by its name: its front end must confirm it (SourceFile::kind_guessed).
  // Such a file is also in `skipped` as unknown-kind, which is what it is
  // when the front end refutes the guess; the scan keeps one of the two.
  bool kind_guessed = false;
};

// An entry found but not read, and why (docs/report.schema.json lists the
// reasons): unknown-kind (no front end reads such files), not-regular-file
// (a FIFO, socket or device, or a symlink to one), broken-symlink,
// symlink-directory (not followed), excluded-directory (a virtual
// environment or cache, not entered), nested-repository (a submodule or
// another repository inside this one, not entered) and gitignored (a file
// or directory that git's ignore files ignore; a directory is not entered).
struct SkippedFile {
  std::string path; // relative to the scan root, '/'-separated
  std::string reason;
  std::string detail; // for not-regular-file: what it is
};

struct Discovery {
  std::vector<DiscoveredFile> files; // sorted by path
  std::vector<SkippedFile> skipped;  // sorted by path
  std::vector<Diagnostic> diagnostics;
  bool used_git = false;
};

// Directories never descended into: tool caches and virtual environments.
bool is_excluded_directory(std::string_view name);

// With `only` (paths relative to `root`, '/'-separated), the result is what
// a full discovery would give restricted to those paths, files and their
// diagnostics alike, but just those paths are looked at and nothing else is
// stat-ed: a pre-commit run over 5 files in a 20,000-file repository must
// not pay for the 20,000. Outside a work tree (or without git) the tree is
// still walked, as before: the files kept are those in `only`, the walk's
// diagnostics are all kept. A single-file root ignores `only`.
Discovery discover_files(const std::string &root, bool use_git,
                         const std::vector<std::string> *only = nullptr);

} // namespace mpsaudit
