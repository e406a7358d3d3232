// A git repository read in-process: where its work tree and metadata are, and
// its index (.git/index, versions 2 to 4). Nothing here runs git or anything
// a repository's configuration names; every file is opened without blocking
// (a FIFO named .git/index cannot hang a scan) and must be a regular file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

struct GitRepository {
  std::filesystem::path top;        // the top of the work tree (canonical)
  std::filesystem::path git_dir;    // .git, or where a `gitdir:` file points
  std::filesystem::path common_dir; // git_dir, or its `commondir` (linked work trees)
  std::string prefix;               // the directory asked about, relative to top: "" or ending in '/'
  std::size_t hash_bytes = 20;      // 32 in a SHA-256 repository
};

// The work tree that contains `directory`, found as git finds it: the
// nearest directory at or above it with a `.git` directory, or a `.git` file
// naming one. No repository: nullopt.
std::optional<GitRepository> find_git_repository(const std::filesystem::path &directory);

// The commit HEAD names, in lower-case hex: a detached HEAD's id, or the
// branch's from its loose ref or packed-refs. nullopt for an unborn branch or
// anything else (a reftable store, a malformed file). Reads files only.
std::optional<std::string> head_commit(const GitRepository &repository);

struct GitIndexEntry {
  std::string_view path;      // relative to the top of the work tree; in its GitIndex's storage
  std::string_view object_id; // raw bytes, in the same storage
  std::uint32_t mode = 0;
  std::uint32_t ctime_seconds = 0, ctime_nanoseconds = 0;
  std::uint32_t mtime_seconds = 0, mtime_nanoseconds = 0;
  std::uint32_t device = 0, inode = 0, uid = 0, gid = 0, size = 0;
  std::uint8_t stage = 0; // 0, or 1 to 3 for a merge conflict
  bool assume_unchanged = false;
  bool skip_worktree = false;
  bool intent_to_add = false;

  bool is_gitlink() const { return (mode & 0170000) == 0160000; }
  bool is_symlink() const { return (mode & 0170000) == 0120000; }
  bool is_directory() const { return (mode & 0170000) == 0040000; } // a sparse index's directory entry
};

// Where an index's paths and object ids are kept: blocks that never move, so
// that entries can view them. One block holds many names: an index of
// millions of entries costs millions of small strings less.
class IndexStorage {
public:
  IndexStorage() = default;
  IndexStorage(IndexStorage &&other) noexcept { *this = std::move(other); }
  IndexStorage &operator=(IndexStorage &&other) noexcept;
  IndexStorage(const IndexStorage &) = delete;
  IndexStorage &operator=(const IndexStorage &) = delete;

  // A copy of `first` followed by `second`, kept as long as the storage.
  std::string_view keep(std::string_view first, std::string_view second = {});
  // Takes over another storage's blocks (the shared index of a split index).
  void adopt(IndexStorage &&other);
  std::uint64_t bytes_kept() const { return kept_; }

private:
  static constexpr std::size_t kBlockBytes = 1u << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char *free_ = nullptr; // the unused end of the block being filled
  std::size_t free_bytes_ = 0;
  std::uint64_t kept_ = 0;
};

struct GitIndex {
  std::vector<GitIndexEntry> entries; // in index order (sorted by path, then stage)
  std::int64_t mtime_seconds = 0;     // of the index file: entries at or after it are racy
  std::string shared_index;           // split index: the hex name of its shared index, else empty
  bool missing = false;               // there was no index file
  IndexStorage storage;               // what the entries' paths and object ids view
};

// Parses an index file's bytes. False, with `error`, when it is malformed or
// uses a mandatory extension that git itself would refuse.
bool parse_git_index(std::string_view data, std::size_t hash_bytes, GitIndex &index, std::string &error);

// How many times its own size a version 4 index's expanded paths may take.
inline constexpr std::uint64_t kMaxIndexExpansion = 8;

// Reads the repository's index (a missing one is empty, as in a new
// repository, and `missing` is set). With a split index the shared index's
// entries are added, so that every tracked path is present (replaced
// entries appear twice). The file is read through a 1 MiB window, never
// whole: an index costs its entries (about 80 bytes each) and its paths.
// Version 4 compresses paths; one whose paths would take more than
// kMaxIndexExpansion times the file's size is refused.
bool read_git_index(const GitRepository &repository, GitIndex &index, std::string &error);

// Reads a regular file of at most `max_bytes` without blocking on a FIFO or a
// device; with `no_follow`, a symbolic link is refused (git reads .gitignore
// that way). False when the file is missing, of another type, or too large;
// `error` then says which (empty when it is missing).
bool read_regular_file(const std::filesystem::path &path, std::size_t max_bytes, bool no_follow,
                       std::string &content, std::string &error);

} // namespace mpsaudit
