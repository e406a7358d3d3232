// Small text helpers shared by the probe's table reader, report reader and
// generator. The
// probe builds on its own (cmake -S runtime-probe), so it keeps these rather
// than depend on the analyzer's core library.
#pragma once

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mpsaudit::probe {

// The whole contents of a file, or nullopt when it cannot be opened or read
// (the analyzer's read_whole_file, in core/confined_file.h). The string is
// sized once from fstat and read into: a stream copied the coverage table
// (180 KB, read by every scan) through a growing buffer and then again.
inline std::optional<std::string> read_whole_file(const std::filesystem::path &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  const auto read_some = [fd](char *into, std::size_t size) {
    ssize_t got;
    while ((got = ::read(fd, into, size)) < 0 && errno == EINTR) {
    }
    return got;
  };
  struct stat info {};
  std::string text;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode))
    text.resize(static_cast<std::size_t>(info.st_size));
  std::size_t filled = 0;
  ssize_t got = 1;
  // What fstat announced, then what it did not (a growing or special file).
  while (filled < text.size() && (got = read_some(text.data() + filled, text.size() - filled)) > 0)
    filled += static_cast<std::size_t>(got);
  text.resize(filled);
  for (char more[4096]; got > 0 && (got = read_some(more, sizeof more)) > 0;)
    text.append(more, static_cast<std::size_t>(got));
  ::close(fd);
  if (got < 0)
    return std::nullopt;
  return text;
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

inline std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
  return parts;
}

// Splits `text` into `fields` without copies; returns how many fields it has
// (more than fields.size() when it has too many: the rest are not stored).
template <std::size_t N>
std::size_t split_fields(std::string_view text, char separator, std::array<std::string_view, N> &fields) {
  std::size_t count = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (count < N)
      fields[count] = text.substr(start, end == std::string_view::npos ? end : end - start);
    ++count;
    if (end == std::string_view::npos)
      return count;
    start = end + 1;
  }
}

} // namespace mpsaudit::probe
