// A private temporary directory that is removed, with everything in it, on
// every way out of the scope that owns it: a return, an exception.
#pragma once

#include <string>

namespace mpsaudit {

class TemporaryDirectory {
public:
  // Creates `<system temporary directory>/<prefix>XXXXXX` (mode 0700, by
  // mkdtemp); created() is false when that failed.
  explicit TemporaryDirectory(const std::string &prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(TemporaryDirectory &&other) noexcept;
  TemporaryDirectory &operator=(TemporaryDirectory &&other) noexcept;
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;

  bool created() const { return !path_.empty(); }
  // The directory's path; empty when it was not created.
  const std::string &path() const { return path_; }

private:
  void remove();
  std::string path_;
};

} // namespace mpsaudit
