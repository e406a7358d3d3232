// Reading a file that the scanned tree names (a requirements include, a
// config's baseline): only a regular file, only inside the scanned tree once
// symlinks are resolved, and only up to a size limit. The tree is
// attacker-controlled (docs/security.md): `-r /dev/zero`, `-r /dev/stdin`, a
// FIFO or a symlink to /etc/shadow must cost nothing and be reported.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace mpsaudit {

// The directories a tree's files may name: the real path of each scanned
// path (a scanned file stands for its directory). Paths that do not exist are
// left out.
std::vector<std::filesystem::path> confinement_roots(const std::vector<std::string> &scanned_paths);

// True when `path` (absolute and lexically normal) is one of `roots` or lies
// below one. Compares path components, so /repo-evil is not inside /repo.
bool is_within(const std::filesystem::path &path, const std::vector<std::filesystem::path> &roots);

enum class ConfinedStatus {
  Ok,
  OutsideRoot, // outside every root, before or after resolving symlinks
  Missing,     // does not exist (or a symlink loop)
  NotRegular,  // a directory, FIFO, socket or device
  TooLarge,    // larger than the limit
  Unreadable,  // permission denied, read error
};

struct ConfinedFile {
  ConfinedStatus status = ConfinedStatus::Missing;
  std::filesystem::path real_path; // set once resolved, also when refused afterwards
  std::string text;                // the contents, when status is Ok
  std::uint64_t size = 0;          // bytes, when known
};

// Resolves `path` (relative to `base`, or absolute) and reads it when it is a
// regular file of at most `max_bytes` inside `roots`. A path outside the roots
// is refused before anything is opened or stat-ed; a FIFO or device is never
// opened for a blocking read.
ConfinedFile read_confined_file(const std::filesystem::path &base, std::string_view path,
                                const std::vector<std::filesystem::path> &roots, std::uint64_t max_bytes);

// Only the path checks of read_confined_file: OutsideRoot, Missing or Ok
// (with real_path set); nothing is opened.
ConfinedFile resolve_confined_path(const std::filesystem::path &base, std::string_view path,
                                   const std::vector<std::filesystem::path> &roots);

// Reads a regular file without blocking on a FIFO or device, at most
// `max_bytes` of it (TooLarge beyond). Opens `path` as it is: callers confine it.
ConfinedFile read_regular_file(const std::filesystem::path &path, std::uint64_t max_bytes);

// The bytes of the regular file open on `fd`: as many as fstat gives, so a
// file that grows or never ends (/proc/kmsg) is read no further, and nullopt
// when `fd` is not a regular file, is larger than `limit` or fails to read.
// `info`, when given, receives the fstat. `fd` stays open.
std::optional<std::string> read_stated_size(int fd, std::uint64_t limit, struct stat *info = nullptr);

// The first `bytes` bytes of a regular file (fewer when it is shorter), to
// tell its format by its signature. A symlink is not followed and a FIFO or
// device never waited on: nullopt for anything but a regular file, or when
// it cannot be read.
std::optional<std::string> read_file_head(const std::filesystem::path &path, std::size_t bytes);

// The whole contents of a file the user named (a rules file, a baseline, a
// run's log), or nullopt when it cannot be opened. Unlike read_regular_file it
// sets no size limit and opens whatever the path names; never use it for a
// path that the scanned tree names.
std::optional<std::string> read_whole_file(const std::filesystem::path &path);

// A short description of a refusal, e.g. "is outside the scanned tree".
std::string_view describe(ConfinedStatus status);

} // namespace mpsaudit
