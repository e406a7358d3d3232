#include "scan/discover.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

#include "core/confined_file.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "workflow/work_tree.h"

namespace mpsaudit {
namespace fs = std::filesystem;

bool is_excluded_directory(std::string_view name) {
  static const std::array<std::string_view, 13> excluded{
      ".git", ".hg",         ".svn",          "node_modules",  "__pycache__",        ".venv", "venv",
      ".tox", ".mypy_cache", ".pytest_cache", "site-packages", ".ipynb_checkpoints", ".eggs"};
  return std::find(excluded.begin(), excluded.end(), name) != excluded.end();
}

namespace {

// What a non-regular file is, for the skipped list.
std::string describe(const fs::file_status &status) {
  switch (status.type()) {
  case fs::file_type::fifo:
    return "a FIFO";
  case fs::file_type::socket:
    return "a socket";
  case fs::file_type::character:
    return "a character device";
  case fs::file_type::block:
    return "a block device";
  default:
    return "not a regular file";
  }
}

void skip(Discovery &discovery, const std::string &relative, std::string reason, std::string detail = {}) {
  discovery.skipped.push_back({relative, std::move(reason), std::move(detail)});
}

// Bytes enough for every signature has_checkpoint_signature knows (a tar
// header is 512).
constexpr std::size_t kSignatureBytes = 512;

// Whether a file whose name no front end claims may still be a checkpoint:
// a name such as .pkl (a regular file, or a symlink to one, as for every
// other name), or the first bytes of a format torch.load reads, whatever
// the name: a renamed pickle is loaded all the same. Only a regular file's
// head is read, never through a symlink; a FIFO or device is not opened.
bool may_be_checkpoint(const fs::path &absolute, const std::string &relative, EntryType type) {
  if (type == EntryType::Other)
    return false;
  if (has_checkpoint_candidate_name(relative))
    return true;
  if (type != EntryType::Regular)
    return false;
  const std::optional<std::string> head = read_file_head(absolute, kSignatureBytes);
  return head && checkpoint::has_checkpoint_signature(*head);
}

// An unknown kind, unless the file may be a checkpoint: then it is read as
// one whose kind is guessed, and listed as skipped too (discover.h).
void add_unknown_kind(Discovery &discovery, const fs::path &absolute, const std::string &relative,
                      EntryType type) {
  skip(discovery, relative, "unknown-kind");
  if (may_be_checkpoint(absolute, relative, type))
    discovery.files.push_back({relative, absolute.string(), FileKind::Checkpoint, true});
}

// Reads a listed entry, or says why not. Symlinks are resolved here: a link
// to a regular file is read, anything else skipped with its reason.
void add_candidate(Discovery &discovery, const fs::path &root, const WorkTreeFile &file) {
  const fs::path absolute = root / file.path;
  std::error_code error;
  if (file.type == EntryType::Symlink) {
    const fs::file_status target = fs::status(absolute, error);
    if (error || !fs::exists(target)) {
      discovery.diagnostics.push_back(
          {DiagnosticLevel::Warning, file.path, 0, "broken-symlink",
           error ? "symbolic link cannot be resolved (" + error.message() + "); skipped"
                 : "symbolic link is dangling; skipped"});
      skip(discovery, file.path, "broken-symlink");
      return;
    }
    if (fs::is_directory(target)) {
      discovery.diagnostics.push_back({DiagnosticLevel::Note, file.path, 0, "symlink-directory",
                                       "symbolic link to a directory not followed"});
      skip(discovery, file.path, "symlink-directory");
      return;
    }
    if (!fs::is_regular_file(target)) {
      skip(discovery, file.path, "not-regular-file", "symbolic link to " + describe(target));
      return;
    }
  }
  const FileKind kind = classify_path(file.path);
  if (kind == FileKind::Unknown) {
    add_unknown_kind(discovery, absolute, file.path, file.type);
    return;
  }
  if (file.type == EntryType::Other) {
    skip(discovery, file.path, "not-regular-file", describe(fs::symlink_status(absolute, error)));
    return;
  }
  discovery.files.push_back({file.path, absolute.string(), kind});
}

} // namespace

Discovery discover_files(const std::string &root_text, bool use_git, const std::vector<std::string> *only) {
  Discovery discovery;
  std::error_code error;
  const fs::path root(root_text);
  const fs::file_status status = fs::status(root, error);
  if (error || !fs::exists(status)) {
    discovery.diagnostics.push_back(
        {DiagnosticLevel::Error, root_text, 0, "not-found", "no such file or directory"});
    return discovery;
  }
  if (!fs::is_directory(status)) {
    // A single file: its name decides its kind; the path stays as given.
    const FileKind kind = classify_path(root.filename().string());
    if (kind == FileKind::Unknown) {
      const EntryType type = !fs::is_regular_file(status)  ? EntryType::Other
                             : fs::is_symlink(root, error) ? EntryType::Symlink
                                                           : EntryType::Regular;
      // A guessed checkpoint keeps the note too: the scan drops it with the
      // skipped entry once the guess is confirmed.
      discovery.diagnostics.push_back({DiagnosticLevel::Note, root_text, 0, "unknown-kind",
                                       "no front end reads files of this kind; skipped"});
      add_unknown_kind(discovery, root, root.filename().generic_string(), type);
    } else if (!fs::is_regular_file(status)) {
      skip(discovery, root.filename().generic_string(), "not-regular-file", describe(status));
    } else {
      discovery.files.push_back({root.filename().generic_string(), root.string(), kind});
    }
    return discovery;
  }
  WorkTreeOptions options;
  options.use_git = use_git;
  options.only = only;
  options.excluded_directory = is_excluded_directory;
  WorkTreeListing listing = list_work_tree(root, options);
  discovery.used_git = listing.repository.has_value();
  discovery.diagnostics = std::move(listing.diagnostics);
  for (auto &directory : listing.skipped)
    skip(discovery, directory.path, std::move(directory.reason));
  for (const auto &file : listing.files)
    add_candidate(discovery, root, file);
  if (only && !discovery.used_git) {
    // The whole tree was listed; its diagnostics stay as they were (an
    // unreadable directory may hide a candidate).
    const std::set<std::string> wanted(only->begin(), only->end());
    const auto unwanted = [&](const auto &entry) { return !wanted.count(entry.path); };
    discovery.files.erase(std::remove_if(discovery.files.begin(), discovery.files.end(), unwanted),
                          discovery.files.end());
    discovery.skipped.erase(std::remove_if(discovery.skipped.begin(), discovery.skipped.end(), unwanted),
                            discovery.skipped.end());
  }
  const auto by_path = [](const auto &a, const auto &b) { return a.path < b.path; };
  std::sort(discovery.files.begin(), discovery.files.end(), by_path);
  std::sort(discovery.skipped.begin(), discovery.skipped.end(), by_path);
  return discovery;
}

} // namespace mpsaudit
