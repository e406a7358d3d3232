#include "workflow/git_repository.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxSmallFileBytes = 1u << 20; // .git files, commondir, config
constexpr std::size_t kMaxIndexBytes = 1024u << 20;  // 1 GiB: millions of entries
constexpr std::size_t kMaxHashBytes = 32;            // SHA-256

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

// Whether `text` is an object id in hex: 40 digits, or 64 in SHA-256.
bool is_hex_object_id(std::string_view text) {
  return (text.size() == 40 || text.size() == 64) && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c));
         });
}

// The object id a ref names in `packed-refs` ("<id> <ref>" lines; `#` and
// `^` lines are headers and peeled tags).
std::optional<std::string> packed_ref(const fs::path &common_dir, std::string_view ref) {
  std::string content, error;
  if (!read_regular_file(common_dir / "packed-refs", kMaxIndexBytes, true, content, error))
    return std::nullopt;
  std::string_view text(content);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const std::size_t space = line.find(' ');
    if (space != std::string_view::npos && line.substr(space + 1) == ref &&
        is_hex_object_id(line.substr(0, space)))
      return std::string(line.substr(0, space));
  }
  return std::nullopt;
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

std::string_view IndexStorage::keep(std::string_view first, std::string_view second) {
  const std::size_t length = first.size() + second.size();
  if (length == 0)
    return {};
  if (length > free_bytes_) {
    const std::size_t size = std::max(kBlockBytes, length);
    blocks_.push_back(std::make_unique<char[]>(size));
    free_ = blocks_.back().get();
    free_bytes_ = size;
  }
  char *at = free_;
  std::copy(first.begin(), first.end(), at);
  std::copy(second.begin(), second.end(), at + first.size());
  free_ += length;
  free_bytes_ -= length;
  kept_ += length;
  return {at, length};
}

IndexStorage &IndexStorage::operator=(IndexStorage &&other) noexcept {
  blocks_ = std::move(other.blocks_);
  free_ = std::exchange(other.free_, nullptr);
  free_bytes_ = std::exchange(other.free_bytes_, 0);
  kept_ = std::exchange(other.kept_, 0);
  other.blocks_.clear();
  return *this;
}

void IndexStorage::adopt(IndexStorage &&other) {
  blocks_.insert(blocks_.end(), std::make_move_iterator(other.blocks_.begin()),
                 std::make_move_iterator(other.blocks_.end()));
  kept_ += other.kept_;
  other = IndexStorage{};
}

namespace {

// An index's bytes, asked for front to back: all of them in memory (a
// parse of a buffer), or a file read through a window that moves forward.
class IndexBytes {
public:
  explicit IndexBytes(std::string_view data) : data_(data), size_(data.size()) {}
  IndexBytes(int fd, std::uint64_t size) : fd_(fd), size_(size) {}

  std::uint64_t size() const { return size_; }

  // The bytes [offset, offset + length), valid until the next call; nullopt
  // past the end or when the file cannot be read.
  std::optional<std::string_view> at(std::uint64_t offset, std::size_t length) {
    if (offset > size_ || length > size_ - offset)
      return std::nullopt;
    if (fd_ < 0)
      return data_.substr(static_cast<std::size_t>(offset), length);
    if (offset < window_start_ || offset + length > window_start_ + window_.size()) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(std::max(length, kWindowBytes), size_ - offset));
      window_.resize(want);
      std::size_t done = 0;
      while (done < want) {
        const ssize_t got =
            ::pread(fd_, window_.data() + done, want - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR)
          continue;
        if (got <= 0)
          break;
        done += static_cast<std::size_t>(got);
      }
      window_.resize(done);
      window_start_ = offset;
      if (done < length)
        return std::nullopt; // the file shrank while it was read
    }
    return std::string_view(window_).substr(static_cast<std::size_t>(offset - window_start_), length);
  }

  // The offset of the first NUL in [offset, end), or nullopt.
  std::optional<std::uint64_t> find_nul(std::uint64_t offset, std::uint64_t end) {
    while (offset < end) {
      const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(end - offset, kScanBytes));
      const std::optional<std::string_view> chunk = at(offset, length);
      if (!chunk)
        return std::nullopt;
      if (const std::size_t nul = chunk->find('\0'); nul != std::string_view::npos)
        return offset + nul;
      offset += length;
    }
    return std::nullopt;
  }

private:
  static constexpr std::size_t kWindowBytes = 1u << 20;
  static constexpr std::size_t kScanBytes = 64u << 10;
  std::string_view data_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string window_;
  std::uint64_t window_start_ = 0;
};

std::string entry_error(const char *what, std::uint32_t entry) {
  return std::string(what) + " at entry " + std::to_string(entry);
}

bool parse_index(IndexBytes &data, std::size_t hash_bytes, GitIndex &index, std::string &error) {
  if (hash_bytes > kMaxHashBytes) {
    error = "object ids of " + std::to_string(hash_bytes) + " bytes are not supported";
    return false;
  }
  const std::optional<std::string_view> header = data.at(0, 12);
  if (data.size() < 12 + hash_bytes || !header || header->substr(0, 4) != "DIRC") {
    error = "not an index file";
    return false;
  }
  const std::uint32_t version = read32(*header, 4);
  if (version < 2 || version > 4) {
    error = "index version " + std::to_string(version) + " is not supported";
    return false;
  }
  const std::uint32_t count = read32(*header, 8);
  const std::uint64_t end = data.size() - hash_bytes; // the checksum follows
  const std::size_t fixed = 40 + hash_bytes + 2;      // stat data, object id, flags
  // Version 4 paths are the previous one's prefix plus a suffix: a crafted
  // index could make them grow without bound.
  const std::uint64_t max_kept = kMaxIndexExpansion * data.size() + (1u << 20);
  std::uint64_t offset = 12;
  std::string_view previous;
  index.entries.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, end / fixed)));
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::optional<std::string_view> stat =
        offset + fixed <= end ? data.at(offset, fixed) : std::nullopt;
    if (!stat) {
      error = entry_error("truncated", i);
      return false;
    }
    GitIndexEntry entry;
    entry.ctime_seconds = read32(*stat, 0);
    entry.ctime_nanoseconds = read32(*stat, 4);
    entry.mtime_seconds = read32(*stat, 8);
    entry.mtime_nanoseconds = read32(*stat, 12);
    entry.device = read32(*stat, 16);
    entry.inode = read32(*stat, 20);
    entry.mode = read32(*stat, 24);
    entry.uid = read32(*stat, 28);
    entry.gid = read32(*stat, 32);
    entry.size = read32(*stat, 36);
    const std::uint16_t flags = read16(*stat, 40 + hash_bytes);
    std::array<char, kMaxHashBytes> object_id{}; // `stat` moves with the next read
    std::copy_n(stat->data() + 40, hash_bytes, object_id.begin());
    entry.assume_unchanged = flags & 0x8000;
    entry.stage = static_cast<std::uint8_t>((flags >> 12) & 3);
    std::uint64_t name = offset + fixed;
    if (flags & 0x4000) { // extended flags
      const std::optional<std::string_view> extended = name + 2 <= end ? data.at(name, 2) : std::nullopt;
      if (version < 3 || !extended) {
        error = entry_error("bad extended flags", i);
        return false;
      }
      entry.skip_worktree = read16(*extended, 0) & 0x4000;
      entry.intent_to_add = read16(*extended, 0) & 0x2000;
      name += 2;
    }
    std::string_view path;
    if (version == 4) {
      // The name is the previous one, less its last N bytes, plus a suffix.
      const std::optional<std::string_view> varint =
          data.at(name, static_cast<std::size_t>(std::min<std::uint64_t>(end - name, 16)));
      std::size_t used = 0;
      std::uint64_t strip = 0;
      if (!varint || !read_varint(*varint, used, varint->size(), strip) || strip > previous.size()) {
        error = entry_error("bad path compression", i);
        return false;
      }
      name += used;
      const std::optional<std::uint64_t> nul = data.find_nul(name, end);
      const std::optional<std::string_view> suffix =
          nul ? data.at(name, static_cast<std::size_t>(*nul - name)) : std::nullopt;
      if (!suffix) {
        error = entry_error("unterminated path", i);
        return false;
      }
      if (index.storage.bytes_kept() + (previous.size() - strip) + suffix->size() > max_kept) {
        error = "paths expand past " + std::to_string(kMaxIndexExpansion) + " times the index's size";
        return false;
      }
      path = index.storage.keep(previous.substr(0, previous.size() - strip), *suffix);
      offset = *nul + 1;
    } else {
      const std::optional<std::uint64_t> nul = data.find_nul(name, end);
      const std::uint64_t length = (flags & 0x0fff) < 0x0fff ? (flags & 0x0fff) : (nul ? *nul - name : 0);
      const std::optional<std::string_view> text =
          nul && name + length <= *nul ? data.at(name, static_cast<std::size_t>(length)) : std::nullopt;
      if (!text) {
        error = entry_error("unterminated path", i);
        return false;
      }
      path = index.storage.keep(*text);
      offset += (name - offset + length + 8) & ~std::uint64_t{7}; // NUL-padded to 8 bytes
      if (offset > end) {
        error = entry_error("truncated", i);
        return false;
      }
    }
    entry.object_id = index.storage.keep(std::string_view(object_id.data(), hash_bytes));
    entry.path = path;
    previous = path;
    index.entries.push_back(entry);
  }
  // Extensions: optional ones start with an upper-case letter; git refuses
  // an index with a mandatory one it does not know, and so do we. Only the
  // headers are read, and a split index's link.
  while (offset + 8 <= end) {
    const std::optional<std::string_view> head = data.at(offset, 8);
    if (!head) {
      error = "truncated extension";
      return false;
    }
    const std::string signature(head->substr(0, 4));
    const std::uint32_t size = read32(*head, 4);
    if (size > end - offset - 8) {
      error = "truncated extension";
      return false;
    }
    if (signature == "link" && size >= hash_bytes) {
      const std::optional<std::string_view> link = data.at(offset + 8, hash_bytes);
      if (!link) {
        error = "truncated extension";
        return false;
      }
      index.shared_index = to_hex(*link);
    } else if (signature[0] >= 'a' && signature[0] <= 'z' && signature != "sdir" && signature != "link") {
      error = "unknown mandatory extension '" + signature + "'";
      return false;
    }
    offset += 8 + size;
  }
  return true;
}

// Opens an index file for reading through IndexBytes: a regular file, not
// through a symlink, never blocking, at most kMaxIndexBytes. -1 with `error`
// empty when it is missing.
int open_index(const fs::path &path, std::uint64_t &size, std::string &error) {
  error.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ELOOP)
      error = "is a symbolic link; not followed";
    else if (errno != ENOENT && errno != ENOTDIR)
      error = std::strerror(errno);
    return -1;
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0)
    error = std::strerror(errno);
  else if (!S_ISREG(status.st_mode))
    error = "not a regular file";
  else if (static_cast<std::uint64_t>(status.st_size) > kMaxIndexBytes)
    error = "larger than " + std::to_string(kMaxIndexBytes) + " bytes";
  if (!error.empty()) {
    ::close(fd);
    return -1;
  }
  size = static_cast<std::uint64_t>(status.st_size);
  return fd;
}

// Reads the index file at `path` into `index`. `missing` when there is none.
bool read_index_file(const fs::path &path, std::size_t hash_bytes, GitIndex &index, bool &missing,
                     std::string &error) {
  std::uint64_t size = 0;
  const int fd = open_index(path, size, error);
  missing = fd < 0 && error.empty();
  if (fd < 0)
    return false;
  IndexBytes data(fd, size);
  const bool ok = parse_index(data, hash_bytes, index, error);
  struct stat status {};
  if (::fstat(fd, &status) == 0)
    index.mtime_seconds = status.st_mtime;
  ::close(fd);
  return ok;
}

} // namespace

bool parse_git_index(std::string_view data, std::size_t hash_bytes, GitIndex &index, std::string &error) {
  IndexBytes bytes(data);
  return parse_index(bytes, hash_bytes, index, error);
}

bool read_git_index(const GitRepository &repository, GitIndex &index, std::string &error) {
  index = GitIndex{};
  const fs::path path = repository.git_dir / "index";
  bool missing = false;
  if (!read_index_file(path, repository.hash_bytes, index, missing, error)) {
    if (missing) {
      index.missing = true; // no index yet: nothing tracked
      return true;
    }
    error = path.string() + ": " + error;
    return false;
  }
  if (index.shared_index.empty())
    return true;
  const fs::path shared_path = repository.git_dir / ("sharedindex." + index.shared_index);
  GitIndex shared;
  if (!read_index_file(shared_path, repository.hash_bytes, shared, missing, error)) {
    error = shared_path.string() + ": " + (missing ? "missing" : error);
    return false;
  }
  // The split index names what changed since; the shared one the rest.
  index.entries.erase(std::remove_if(index.entries.begin(), index.entries.end(),
                                     [](const GitIndexEntry &entry) { return entry.path.empty(); }),
                      index.entries.end());
  index.entries.insert(index.entries.end(), shared.entries.begin(), shared.entries.end());
  index.storage.adopt(std::move(shared.storage));
  return true;
}

std::optional<std::string> head_commit(const GitRepository &repository) {
  const std::optional<std::string> head = first_line(repository.git_dir / "HEAD");
  if (!head)
    return std::nullopt;
  if (is_hex_object_id(*head)) // a detached HEAD
    return to_lower(*head);
  if (head->rfind("ref:", 0) != 0)
    return std::nullopt;
  const std::string ref(trim(std::string_view(*head).substr(4)));
  // A ref is a path below the metadata: nothing that climbs out of it.
  if (ref.rfind("refs/", 0) != 0 || ref.find("..") != std::string::npos)
    return std::nullopt;
  if (const std::optional<std::string> loose = first_line(repository.common_dir / ref);
      loose && is_hex_object_id(*loose))
    return to_lower(*loose);
  if (const std::optional<std::string> packed = packed_ref(repository.common_dir, ref))
    return to_lower(*packed);
  return std::nullopt; // an unborn branch, or a ref store git reads and we do not
}

} // namespace mpsaudit
