// Reading and replacing the files `mpsaudit fix` edits. The tree is
// untrusted: it may plant symlinks (to files outside it, or under the name of
// a temporary file), hard links and read-only files, and another process may
// edit a file while fix works on it. See fix/fix_files.h and docs/fix.md.
#include "fix/fix_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>
#include <vector>

#include "core/descriptor.h"

namespace mpsaudit {
namespace fs = std::filesystem;

bool operator==(const FileIdentity &a, const FileIdentity &b) {
  return a.device == b.device && a.inode == b.inode && a.links == b.links && a.size == b.size &&
         a.modified_ns == b.modified_ns && a.mode == b.mode && a.owner == b.owner && a.group == b.group;
}

namespace {

std::string error_text(int error) {
  return std::strerror(error);
}

FileIdentity identity_of(const struct stat &status) {
  FileIdentity identity;
  identity.device = static_cast<std::uint64_t>(status.st_dev);
  identity.inode = static_cast<std::uint64_t>(status.st_ino);
  identity.links = static_cast<std::uint64_t>(status.st_nlink);
  identity.size = static_cast<std::int64_t>(status.st_size);
#ifdef __APPLE__
  const struct timespec &modified = status.st_mtimespec;
#else
  const struct timespec &modified = status.st_mtim;
#endif
  identity.modified_ns = static_cast<std::int64_t>(modified.tv_sec) * 1000000000 + modified.tv_nsec;
  identity.mode = static_cast<std::uint32_t>(status.st_mode);
  identity.owner = static_cast<std::uint32_t>(status.st_uid);
  identity.group = static_cast<std::uint32_t>(status.st_gid);
  return identity;
}

// Opens the directory that holds `location` and names the file in it,
// one component at a time from the root, refusing any symlink on the way.
Descriptor open_parent(const TreePath &location, std::string &leaf, std::string &error) {
  Descriptor directory(::open(location.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.valid()) {
    error = "cannot open the scanned directory: " + error_text(errno);
    return Descriptor();
  }
  const fs::path relative(location.relative);
  std::vector<std::string> parts;
  for (const auto &part : relative)
    parts.push_back(part.string());
  if (parts.empty() || parts.back() == "." || parts.back() == "..") {
    error = "not a file below the scanned directory";
    return Descriptor();
  }
  leaf = parts.back();
  parts.pop_back();
  for (const auto &part : parts) {
    if (part == "..") {
      error = "not a file below the scanned directory";
      return Descriptor();
    }
    Descriptor next(::openat(directory.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      error = "a directory on its path changed or became a symbolic link (" + error_text(errno) + ")";
      return Descriptor();
    }
    directory = std::move(next);
  }
  return directory;
}

// Opens the file `leaf` of `directory` for reading, never through a symlink
// and never blocking on a FIFO planted under its name.
Descriptor open_leaf(int directory, const std::string &leaf, struct stat &status, std::string &error) {
  Descriptor file(
      ::openat(directory, leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!file.valid()) {
    error = errno == ELOOP ? "it became a symbolic link" : "cannot open it: " + error_text(errno);
    return Descriptor();
  }
  if (::fstat(file.get(), &status) != 0) {
    error = "cannot stat it: " + error_text(errno);
    return Descriptor();
  }
  if (!S_ISREG(status.st_mode)) {
    error = "not a regular file";
    return Descriptor();
  }
  return file;
}

// The whole content of an open file, read from its start.
std::optional<std::string> read_all(int fd, std::string &error) {
  std::string text;
  char buffer[65536];
  off_t offset = 0;
  for (;;) {
    const ssize_t count = ::pread(fd, buffer, sizeof buffer, offset);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0) {
      error = "cannot read it: " + error_text(errno);
      return std::nullopt;
    }
    if (count == 0)
      return text;
    text.append(buffer, static_cast<std::size_t>(count));
    offset += count;
  }
}

bool write_all(int fd, const std::string &text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0) {
      if (count == 0)
        errno = EIO;
      return false;
    }
    written += static_cast<std::size_t>(count);
  }
  return true;
}

// Flushes a file to the disk itself (on macOS fsync only reaches the drive's cache).
bool sync_file(int fd) {
#ifdef F_FULLFSYNC
  if (::fcntl(fd, F_FULLFSYNC) == 0)
    return true;
#endif
  return ::fsync(fd) == 0;
}

// Whether the file named `leaf` in `directory` is still the one fix read:
// the same inode, with the same size, time, mode, owner and links, through
// the name and through `file` (the descriptor fix holds locked), and the
// same text, read again through `file`: the bytes the edits were planned
// from, which plan_fixes held to the bytes the scan read. Another editor's
// save or another fix's (a new inode, or the same one rewritten) fails it.
bool unchanged_since_read(int directory, const std::string &leaf, int file, const FileFix &fix) {
  struct stat by_name {};
  struct stat by_descriptor {};
  if (::fstatat(directory, leaf.c_str(), &by_name, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(by_name.st_mode) ||
      ::fstat(file, &by_descriptor) != 0)
    return false;
  const FileIdentity named = identity_of(by_name);
  if (named.device != fix.identity.device || named.inode != fix.identity.inode ||
      identity_of(by_descriptor) != fix.identity)
    return false;
  std::string ignored;
  const auto text = read_all(file, ignored);
  return text && *text == fix.original;
}

// A new file beside the original, under a name nobody can have planted:
// random, created exclusively (O_EXCL never follows a symlink, and a name
// that exists, as a link or anything else, is skipped), readable only by
// this user until it gets the original's owner and mode.
Descriptor create_temporary(int directory, std::string &name, std::string &error) {
  static std::mt19937_64 random(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32));
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    name = std::string(".mpsaudit-fix-") + suffix;
    Descriptor file(::openat(directory, name.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600));
    if (file.valid())
      return file;
    if (errno != EEXIST) {
      error = "cannot create a temporary file beside it: " + error_text(errno);
      return Descriptor();
    }
  }
  error = "cannot find a free temporary file name beside it";
  return Descriptor();
}

// Why one file was not written.
struct Refusal {
  DiagnosticLevel level = DiagnosticLevel::Error;
  std::string code;
  std::string message; // the diagnostic
  std::string reason;  // for its fixes in run.skipped
};

// Writes `text` to the open temporary file with the original's owner, group
// and mode, and syncs it. Owner first: chown clears set-user-ID bits.
std::optional<Refusal> fill_temporary(int file, const FileFix &fix) {
  auto failed = [](const std::string &what) {
    const int error = errno;
    const std::string message = what + " (" + error_text(error) + ")";
    return Refusal{DiagnosticLevel::Error, "write-failed", message + "; the file is unchanged",
                   "not written: " + message};
  };
  if (!write_all(file, fix.fixed))
    return failed("cannot write the fixed file");
  struct stat status {};
  if (::fstat(file, &status) != 0)
    return failed("cannot stat the temporary file");
  if ((status.st_uid != fix.identity.owner || status.st_gid != fix.identity.group) &&
      ::fchown(file, fix.identity.owner, fix.identity.group) != 0)
    return failed("cannot give the fixed file the original's owner and group");
  if (::fchmod(file, static_cast<mode_t>(fix.identity.mode & 07777)) != 0)
    return failed("cannot give the fixed file the original's mode");
  if (!sync_file(file))
    return failed("cannot sync the fixed file to disk");
  return std::nullopt;
}

// Replaces one file, or says why not.
std::optional<Refusal> write_file(const FileFix &fix, const FixWriteHooks *hooks) {
  if ((fix.identity.mode & 0222) == 0)
    return Refusal{DiagnosticLevel::Note, "read-only", "read-only file; fix does not edit it",
                   "read-only file: not edited"};
  if (fix.identity.links > 1) {
    const std::string links = std::to_string(fix.identity.links);
    return Refusal{DiagnosticLevel::Warning, "hard-linked",
                   "the file has " + links +
                       " hard links; fix does not edit it (replacing it would split the links, editing it "
                       "in place would change every name at once)",
                   "hard-linked file: not edited"};
  }
  const auto changed = Refusal{DiagnosticLevel::Error, "file-changed",
                               "the file changed since fix read it; it was not written (run fix again)",
                               "not written: the file changed since fix read it"};
  std::string leaf, error;
  Descriptor directory = open_parent(fix.location, leaf, error);
  struct stat status {};
  Descriptor original = directory.valid() ? open_leaf(directory.get(), leaf, status, error) : Descriptor();
  if (!original.valid())
    return Refusal{DiagnosticLevel::Error, "file-changed", "cannot open the file again: " + error,
                   changed.reason};
  // One fix at a time per file: a second `fix --apply` on the same tree
  // waits for nothing and overwrites nothing; it finds the lock, or finds
  // the file replaced once the lock is free.
  if (::flock(original.get(), LOCK_EX | LOCK_NB) != 0)
    return Refusal{DiagnosticLevel::Error, "file-locked",
                   "another process is fixing this file; it was not written (run fix again)",
                   "not written: another process was fixing the file"};
  if (!unchanged_since_read(directory.get(), leaf, original.get(), fix))
    return changed;

  std::string temporary_name;
  Descriptor temporary = create_temporary(directory.get(), temporary_name, error);
  if (!temporary.valid())
    return Refusal{DiagnosticLevel::Error, "write-failed", error, "not written: " + error};
  auto discard = [&] { ::unlinkat(directory.get(), temporary_name.c_str(), 0); };
  auto refusal = fill_temporary(temporary.get(), fix);
  if (!refusal && !temporary.close())
    refusal = Refusal{DiagnosticLevel::Error, "write-failed",
                      "cannot write the fixed file (" + error_text(errno) + "); the file is unchanged",
                      "not written: the write failed"};
  if (refusal) {
    discard();
    return refusal;
  }
  if (hooks && hooks->before_rename)
    hooks->before_rename(fix);
  // The last look, as late as it can be: an edit saved while fix was
  // writing must not be lost.
  if (!unchanged_since_read(directory.get(), leaf, original.get(), fix)) {
    discard();
    return changed;
  }
  if (::renameat(directory.get(), temporary_name.c_str(), directory.get(), leaf.c_str()) != 0) {
    const std::string message = "cannot replace the file: " + error_text(errno);
    discard();
    return Refusal{DiagnosticLevel::Error, "write-failed", message, "not written: " + message};
  }
  // The rename itself is durable once the directory is synced; the text
  // is already on disk, so a failure here loses nothing but the rename.
  sync_file(directory.get());
  return std::nullopt;
}

} // namespace

std::optional<TreePath> resolve_in_tree(const std::string &root, const std::string &path,
                                        Diagnostic &problem) {
  problem = {DiagnosticLevel::Error, path, 0, "unreadable", ""};
  std::error_code error;
  const fs::path root_real = fs::canonical(root.empty() ? "." : root, error);
  if (error) {
    problem.message = "cannot resolve the scanned directory: " + error.message();
    return std::nullopt;
  }
  // Resolving follows symlinks only to learn where they lead; nothing is
  // opened on the way.
  const fs::path resolved = fs::canonical(root_real / fs::path(path), error);
  if (error) {
    problem.message = "cannot read the file to fix it: " + error.message();
    return std::nullopt;
  }
  const fs::path relative = resolved.lexically_relative(root_real);
  if (relative.empty() || relative == "." || *relative.begin() == "..") {
    problem.level = DiagnosticLevel::Warning;
    problem.code = "outside-tree";
    problem.message = "a symbolic link leads outside the scanned tree; fix does not read or edit it";
    return std::nullopt;
  }
  return TreePath{root_real.string(), relative.generic_string()};
}

std::optional<std::string> read_in_tree(const TreePath &location, FileIdentity &identity,
                                        std::string &error) {
  std::string leaf;
  const Descriptor directory = open_parent(location, leaf, error);
  if (!directory.valid())
    return std::nullopt;
  struct stat status {};
  const Descriptor file = open_leaf(directory.get(), leaf, status, error);
  if (!file.valid())
    return std::nullopt;
  identity = identity_of(status);
  return read_all(file.get(), error);
}

bool write_fixes(FixRun &run, std::vector<Diagnostic> &diagnostics, const FixWriteHooks *hooks) {
  bool ok = true;
  std::vector<FileFix> written;
  for (auto &file : run.files) {
    const auto refusal = write_file(file, hooks);
    if (!refusal) {
      written.push_back(std::move(file));
      continue;
    }
    diagnostics.push_back({refusal->level, file.path, 0, refusal->code, refusal->message});
    ok = ok && refusal->level != DiagnosticLevel::Error;
    ++run.files_not_written;
    for (auto &fix : file.fixes)
      run.skipped.push_back({std::move(fix.finding), refusal->reason, false});
  }
  run.files = std::move(written);
  return ok;
}

} // namespace mpsaudit
