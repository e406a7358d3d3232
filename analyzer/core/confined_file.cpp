#include "core/confined_file.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

// Closes a file descriptor on every return path.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }

private:
  int fd_;
};

ConfinedStatus status_of_errno(int error) {
  return error == ENOENT || error == ENOTDIR || error == ELOOP ? ConfinedStatus::Missing
                                                               : ConfinedStatus::Unreadable;
}

} // namespace

std::vector<fs::path> confinement_roots(const std::vector<std::string> &scanned_paths) {
  std::vector<fs::path> roots;
  for (const auto &scanned : scanned_paths) {
    std::error_code error;
    fs::path real = fs::canonical(scanned.empty() ? fs::path(".") : fs::path(scanned), error);
    if (error)
      continue;
    if (!fs::is_directory(real, error))
      real = real.parent_path();
    if (std::find(roots.begin(), roots.end(), real) == roots.end())
      roots.push_back(std::move(real));
  }
  return roots;
}

bool is_within(const fs::path &path, const std::vector<fs::path> &roots) {
  for (const auto &root : roots) {
    auto root_part = root.begin();
    auto path_part = path.begin();
    while (root_part != root.end() && path_part != path.end() && *root_part == *path_part) {
      ++root_part;
      ++path_part;
    }
    if (root_part == root.end())
      return true;
  }
  return false;
}

ConfinedFile resolve_confined_path(const fs::path &base, std::string_view path,
                                   const std::vector<fs::path> &roots) {
  ConfinedFile file;
  const fs::path named(path);
  // Refused on the name alone first: `../../etc/passwd` and `/dev/zero` are
  // never even stat-ed.
  file.real_path = (named.is_absolute() ? named : base / named).lexically_normal();
  if (!is_within(file.real_path, roots)) {
    file.status = ConfinedStatus::OutsideRoot;
    return file;
  }
  std::error_code error;
  fs::path real = fs::canonical(file.real_path, error);
  if (error) {
    file.status = ConfinedStatus::Missing;
    return file;
  }
  file.real_path = std::move(real);
  // A symlink inside the tree may point out of it.
  file.status = is_within(file.real_path, roots) ? ConfinedStatus::Ok : ConfinedStatus::OutsideRoot;
  return file;
}

std::optional<std::string> read_stated_size(int fd, std::uint64_t limit, struct stat *info) {
  struct stat found {};
  if (::fstat(fd, &found) != 0 || !S_ISREG(found.st_mode) ||
      static_cast<std::uint64_t>(found.st_size) > limit)
    return std::nullopt;
  std::string data(static_cast<std::size_t>(found.st_size), '\0');
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t got = ::read(fd, data.data() + done, data.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return std::nullopt; // an I/O error: the text would be cut short
    if (got == 0)
      break; // the file shrank since fstat
    done += static_cast<std::size_t>(got);
  }
  data.resize(done);
  if (info)
    *info = found;
  return data;
}

std::optional<std::string> read_file_head(const fs::path &path, std::size_t bytes) {
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  struct stat info {};
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
    return std::nullopt;
  std::string head(bytes, '\0');
  std::size_t done = 0;
  while (done < head.size()) {
    const ssize_t got = ::read(fd.get(), head.data() + done, head.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return std::nullopt;
    if (got == 0)
      break;
    done += static_cast<std::size_t>(got);
  }
  head.resize(done);
  return head;
}

ConfinedFile read_regular_file(const fs::path &path, std::uint64_t max_bytes) {
  ConfinedFile file;
  file.real_path = path;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    file.status = status_of_errno(errno);
    return file;
  }
  if (!S_ISREG(info.st_mode)) {
    file.status = ConfinedStatus::NotRegular;
    return file;
  }
  file.size = static_cast<std::uint64_t>(info.st_size);
  if (file.size > max_bytes) {
    file.status = ConfinedStatus::TooLarge;
    return file;
  }
  // O_NONBLOCK: should the file have been swapped for a FIFO since the stat,
  // opening it must not wait for a writer.
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    file.status = status_of_errno(errno);
    return file;
  }
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    file.status = ConfinedStatus::NotRegular;
    return file;
  }
  // Read at most one byte past the limit, however much the file grows.
  char buffer[65536];
  for (;;) {
    const std::uint64_t room = max_bytes - std::min<std::uint64_t>(max_bytes, file.text.size()) + 1;
    const ssize_t got =
        ::read(fd.get(), buffer, static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, room)));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      file.status = ConfinedStatus::Unreadable;
      file.text.clear();
      return file;
    }
    if (got == 0)
      break;
    file.text.append(buffer, static_cast<std::size_t>(got));
    if (file.text.size() > max_bytes) {
      file.status = ConfinedStatus::TooLarge;
      file.size = file.text.size();
      file.text.clear();
      return file;
    }
  }
  file.size = file.text.size();
  file.status = ConfinedStatus::Ok;
  return file;
}

ConfinedFile read_confined_file(const fs::path &base, std::string_view path,
                                const std::vector<fs::path> &roots, std::uint64_t max_bytes) {
  ConfinedFile resolved = resolve_confined_path(base, path, roots);
  if (resolved.status != ConfinedStatus::Ok)
    return resolved;
  return read_regular_file(resolved.real_path, max_bytes);
}

std::optional<std::string> read_whole_file(const fs::path &path) {
  // read(2) into a string sized from fstat: a stream through a
  // stringstream copied every byte twice, and each scan reads its rules,
  // snapshot and tables this way.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct stat info {};
  const bool sized = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0;
  // One byte more than the size, so that the read that meets the end does
  // not have to grow the string first.
  std::string text(sized ? static_cast<std::size_t>(info.st_size) + 1 : 4096, '\0');
  std::size_t used = 0;
  for (;;) {
    if (used == text.size())
      text.resize(2 * text.size());
    const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (got == 0)
      break;
    used += static_cast<std::size_t>(got);
  }
  ::close(fd);
  text.resize(used);
  return text;
}

std::string_view describe(ConfinedStatus status) {
  switch (status) {
  case ConfinedStatus::Ok:
    return "can be read";
  case ConfinedStatus::OutsideRoot:
    return "is outside the scanned tree";
  case ConfinedStatus::Missing:
    return "was not found";
  case ConfinedStatus::NotRegular:
    return "is not a regular file (a directory, FIFO, socket or device)";
  case ConfinedStatus::TooLarge:
    return "exceeds the size limit (--max-file-size)";
  case ConfinedStatus::Unreadable:
    return "cannot be read";
  }
  return "cannot be read";
}

} // namespace mpsaudit
