// Helpers for the acceptance tests: scratch directories and small files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace mpsaudit::testing {

// A fresh directory under the system temp dir, removed with the object.
class ScratchDirectory {
public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mpsaudit-acceptance-XXXXXX").string();
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory &) = delete;
  ScratchDirectory &operator=(const ScratchDirectory &) = delete;
  const std::filesystem::path &path() const { return path_; }

  // Writes `text` to `relative` (parents created); `executable` sets mode 0755.
  std::string write(const std::string &relative, const std::string &text, bool executable = false) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    ::chmod(file.c_str(), executable ? 0755 : 0644);
    return file.string();
  }

private:
  std::filesystem::path path_;
};

// Sets an environment variable for the scope of the object.
class ScopedVariable {
public:
  ScopedVariable(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable &) = delete;
  ScopedVariable &operator=(const ScopedVariable &) = delete;

private:
  const char *name_;
  bool had_ = false;
  std::string old_;
};

inline std::string compare_fixture(const std::string &case_name, const std::string &run) {
  return std::string(MPSAUDIT_SOURCE_DIR) + "/tests/fixtures/compare/" + case_name + "/" + run;
}

} // namespace mpsaudit::testing
