#include "workflow/git_repository.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxSmallFileBytes = 1u << 20; // .git files, commondir, config
constexpr std::size_t kMaxIndexBytes = 1024u << 20;  // 1 GiB: millions of entries

// The first line of a small metadata file (`.git`, `commondir`), trimmed.
std::optional<std::string> first_line(const fs::path &path) {
  std::string content, error;
  if (!read_regular_file(path, kMaxSmallFileBytes, true, content, error))
    return std::nullopt;
  return std::string(trim(std::string_view(content).substr(0, content.find('\n'))));
}

// 32 when the repository's config says `[extensions] objectFormat = sha256`.
// Only that key is read: nothing in the config is acted on.
std::size_t hash_bytes_of(const fs::path &common_dir) {
  std::string config, error;
  if (!read_regular_file(common_dir / "config", kMaxSmallFileBytes, true, config, error))
    return 20;
  std::string section;
  std::string_view text(config);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!line.empty() && line.front() == '[') {
      const std::size_t close = line.find(']');
      if (close == std::string_view::npos)
        continue;
      section = to_lower(trim(line.substr(1, close - 1)));
      line = trim(line.substr(close + 1));
    }
    const std::size_t equals = line.find('=');
    if (section != "extensions" || equals == std::string_view::npos)
      continue;
    std::string_view value = trim(line.substr(equals + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    if (to_lower(trim(line.substr(0, equals))) == "objectformat" && to_lower(value) == "sha256")
      return 32;
  }
  return 20;
}

bool stat_is_directory(const fs::path &path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

// What `.git` in `directory` names, when it is a usable repository. `found`
// tells whether there was a `.git` entry at all.
std::optional<GitRepository> repository_at(const fs::path &directory, bool &found) {
  const fs::path dot_git = directory / ".git";
  struct stat status {};
  found = ::lstat(dot_git.c_str(), &status) == 0;
  if (!found)
    return std::nullopt;
  GitRepository repository;
  repository.top = directory;
  if (stat_is_directory(dot_git)) {
    repository.git_dir = dot_git;
  } else {
    // A linked work tree or a submodule: "gitdir: PATH", relative to here.
    const std::optional<std::string> line = first_line(dot_git);
    if (!line || line->rfind("gitdir:", 0) != 0)
      return std::nullopt;
    const fs::path target(std::string(trim(std::string_view(*line).substr(7))));
    repository.git_dir = target.is_absolute() ? target : directory / target;
  }
  repository.common_dir = repository.git_dir;
  if (const std::optional<std::string> common = first_line(repository.git_dir / "commondir");
      common && !common->empty()) {
    const fs::path target(*common);
    repository.common_dir = target.is_absolute() ? target : repository.git_dir / target;
  }
  struct stat head {};
  if (::lstat((repository.git_dir / "HEAD").c_str(), &head) != 0 ||
      !stat_is_directory(repository.common_dir / "objects"))
    return std::nullopt;
  repository.hash_bytes = hash_bytes_of(repository.common_dir);
  return repository;
}

std::uint32_t read32(std::string_view data, std::size_t offset) {
  const auto *bytes = reinterpret_cast<const unsigned char *>(data.data() + offset);
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) | (std::uint32_t{bytes[2]} << 8) |
         std::uint32_t{bytes[3]};
}

std::uint16_t read16(std::string_view data, std::size_t offset) {
  const auto *bytes = reinterpret_cast<const unsigned char *>(data.data() + offset);
  return static_cast<std::uint16_t>((bytes[0] << 8) | bytes[1]);
}

// git's varint (varint.c): 7 bits a byte, most significant first, each
// continuation adding one. False on overflow or truncation.
bool read_varint(std::string_view data, std::size_t &offset, std::size_t end, std::uint64_t &value) {
  if (offset >= end)
    return false;
  unsigned char c = static_cast<unsigned char>(data[offset++]);
  value = c & 127;
  while (c & 128) {
    if (offset >= end || value >= (std::uint64_t{1} << 56))
      return false;
    c = static_cast<unsigned char>(data[offset++]);
    value = ((value + 1) << 7) | (c & 127);
  }
  return true;
}

std::string hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

} // namespace

bool read_regular_file(const fs::path &path, std::size_t max_bytes, bool no_follow, std::string &content,
                       std::string &error) {
  content.clear();
  error.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (no_follow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    if (errno == ELOOP && no_follow)
      error = "is a symbolic link; not followed";
    else if (errno != ENOENT && errno != ENOTDIR)
      error = std::strerror(errno);
    return false;
  }
  struct stat status {};
  bool ok = ::fstat(fd, &status) == 0;
  if (!ok)
    error = std::strerror(errno);
  else if (!S_ISREG(status.st_mode))
    error = "not a regular file";
  else if (static_cast<std::uint64_t>(status.st_size) > max_bytes)
    error = "larger than " + std::to_string(max_bytes) + " bytes";
  ok = error.empty();
  if (ok) {
    content.resize(static_cast<std::size_t>(status.st_size));
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t got = ::read(fd, content.data() + done, content.size() - done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      done += static_cast<std::size_t>(got);
    }
    content.resize(done);
  }
  ::close(fd);
  return ok;
}

std::optional<GitRepository> find_git_repository(const fs::path &directory) {
  std::error_code error;
  const fs::path start = fs::canonical(directory, error);
  if (error || !stat_is_directory(start))
    return std::nullopt;
  for (fs::path current = start;; current = current.parent_path()) {
    bool found = false;
    std::optional<GitRepository> repository = repository_at(current, found);
    if (repository) {
      const std::string relative = start.lexically_relative(current).generic_string();
      repository->prefix = relative == "." ? "" : relative + "/";
      return repository;
    }
    // git stops at a `.git` it cannot use rather than look further up.
    if (found || current == current.root_path() || current.parent_path() == current)
      return std::nullopt;
  }
}

bool parse_git_index(std::string_view data, std::size_t hash_bytes, GitIndex &index, std::string &error) {
  if (data.size() < 12 + hash_bytes || data.substr(0, 4) != "DIRC") {
    error = "not an index file";
    return false;
  }
  const std::uint32_t version = read32(data, 4);
  if (version < 2 || version > 4) {
    error = "index version " + std::to_string(version) + " is not supported";
    return false;
  }
  const std::uint32_t count = read32(data, 8);
  const std::size_t end = data.size() - hash_bytes; // the checksum follows
  const std::size_t fixed = 40 + hash_bytes + 2;    // stat data, object id, flags
  std::size_t offset = 12;
  std::string previous;
  index.entries.reserve(std::min<std::size_t>(count, end / fixed));
  for (std::uint32_t i = 0; i < count; ++i) {
    if (offset + fixed > end) {
      error = "truncated at entry " + std::to_string(i);
      return false;
    }
    GitIndexEntry entry;
    entry.ctime_seconds = read32(data, offset);
    entry.ctime_nanoseconds = read32(data, offset + 4);
    entry.mtime_seconds = read32(data, offset + 8);
    entry.mtime_nanoseconds = read32(data, offset + 12);
    entry.device = read32(data, offset + 16);
    entry.inode = read32(data, offset + 20);
    entry.mode = read32(data, offset + 24);
    entry.uid = read32(data, offset + 28);
    entry.gid = read32(data, offset + 32);
    entry.size = read32(data, offset + 36);
    entry.object_id = std::string(data.substr(offset + 40, hash_bytes));
    const std::uint16_t flags = read16(data, offset + 40 + hash_bytes);
    entry.assume_unchanged = flags & 0x8000;
    entry.stage = (flags >> 12) & 3;
    std::size_t name = offset + fixed;
    if (flags & 0x4000) { // extended flags
      if (version < 3 || name + 2 > end) {
        error = "bad extended flags at entry " + std::to_string(i);
        return false;
      }
      const std::uint16_t extended = read16(data, name);
      entry.skip_worktree = extended & 0x4000;
      entry.intent_to_add = extended & 0x2000;
      name += 2;
    }
    if (version == 4) {
      // The name is the previous one, less its last N bytes, plus a suffix.
      std::uint64_t strip = 0;
      if (!read_varint(data, name, end, strip) || strip > previous.size()) {
        error = "bad path compression at entry " + std::to_string(i);
        return false;
      }
      const std::size_t nul = data.find('\0', name);
      if (nul == std::string_view::npos || nul >= end) {
        error = "unterminated path at entry " + std::to_string(i);
        return false;
      }
      entry.path = previous.substr(0, previous.size() - strip);
      entry.path.append(data.substr(name, nul - name));
      offset = nul + 1;
    } else {
      const std::size_t nul = data.find('\0', name);
      const std::size_t length = (flags & 0x0fff) < 0x0fff ? (flags & 0x0fff) : nul - name;
      if (nul == std::string_view::npos || nul >= end || name + length > nul) {
        error = "unterminated path at entry " + std::to_string(i);
        return false;
      }
      entry.path = std::string(data.substr(name, length));
      offset += (name - offset + length + 8) & ~std::size_t{7}; // NUL-padded to 8 bytes
      if (offset > end) {
        error = "truncated at entry " + std::to_string(i);
        return false;
      }
    }
    previous = entry.path;
    index.entries.push_back(std::move(entry));
  }
  // Extensions: optional ones start with an upper-case letter; git refuses
  // an index with a mandatory one it does not know, and so do we.
  while (offset + 8 <= end) {
    const std::string_view signature = data.substr(offset, 4);
    const std::uint32_t size = read32(data, offset + 4);
    if (size > end - offset - 8) {
      error = "truncated extension";
      return false;
    }
    if (signature == "link" && size >= hash_bytes)
      index.shared_index = hex(data.substr(offset + 8, hash_bytes));
    else if (signature[0] >= 'a' && signature[0] <= 'z' && signature != "sdir" && signature != "link") {
      error = "unknown mandatory extension '" + std::string(signature) + "'";
      return false;
    }
    offset += 8 + size;
  }
  return true;
}

bool read_git_index(const GitRepository &repository, GitIndex &index, std::string &error) {
  index = GitIndex{};
  const fs::path path = repository.git_dir / "index";
  std::string data;
  if (!read_regular_file(path, kMaxIndexBytes, true, data, error)) {
    if (error.empty())
      return true; // no index yet: nothing tracked
    error = path.string() + ": " + error;
    return false;
  }
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0)
    index.mtime_seconds = status.st_mtime;
  if (!parse_git_index(data, repository.hash_bytes, index, error)) {
    error = path.string() + ": " + error;
    return false;
  }
  if (index.shared_index.empty())
    return true;
  const fs::path shared_path = repository.git_dir / ("sharedindex." + index.shared_index);
  GitIndex shared;
  if (!read_regular_file(shared_path, kMaxIndexBytes, true, data, error) ||
      !parse_git_index(data, repository.hash_bytes, shared, error)) {
    error = shared_path.string() + ": " + (error.empty() ? "missing" : error);
    return false;
  }
  // The split index names what changed since; the shared one the rest.
  index.entries.erase(std::remove_if(index.entries.begin(), index.entries.end(),
                                     [](const GitIndexEntry &entry) { return entry.path.empty(); }),
                      index.entries.end());
  for (auto &entry : shared.entries)
    index.entries.push_back(std::move(entry));
  return true;
}

} // namespace mpsaudit
