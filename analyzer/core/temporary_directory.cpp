#include "core/temporary_directory.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

namespace mpsaudit {
namespace fs = std::filesystem;

TemporaryDirectory::TemporaryDirectory(const std::string &prefix) {
  std::error_code error;
  fs::path base = fs::temp_directory_path(error);
  if (error)
    base = "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()))
    path_ = std::move(pattern);
}

TemporaryDirectory::~TemporaryDirectory() {
  remove();
}

TemporaryDirectory::TemporaryDirectory(TemporaryDirectory &&other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

TemporaryDirectory &TemporaryDirectory::operator=(TemporaryDirectory &&other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

void TemporaryDirectory::remove() {
  if (path_.empty())
    return;
  std::error_code ignored; // nothing more to do when it cannot be removed
  fs::remove_all(path_, ignored);
  path_.clear();
}

} // namespace mpsaudit
