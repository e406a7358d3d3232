// A scratch folder of real files for the tests that need a tree on disk
// (discovery, scans, fixes): a fresh directory under the system temp dir,
// removed with the object.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace mpsaudit::testing {

class ScratchTree {
public:
  // `prefix` starts the folder's name, so that a leftover folder says which
  // tests made it.
  explicit ScratchTree(const std::string &prefix = "mpsaudit-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    root_ = ::mkdtemp(pattern.data());
  }
  ~ScratchTree() {
    namespace fs = std::filesystem;
    std::error_code error;
    // Tests take permissions away (unreadable files and folders): give them
    // back so that the removal can descend everywhere. Never through a
    // symbolic link: its target may be outside the tree.
    for (auto it =
             fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied, error);
         it != fs::recursive_directory_iterator(); it.increment(error))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add | fs::perm_options::nofollow,
                      error);
    fs::remove_all(root_, error);
  }
  ScratchTree(const ScratchTree &) = delete;
  ScratchTree &operator=(const ScratchTree &) = delete;

  const std::filesystem::path &root() const { return root_; }

  // Writes `content` to `relative`, byte for byte, creating its folders;
  // returns the file's path.
  std::filesystem::path write(const std::string &relative, const std::string &content) const {
    const std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  // Makes `relative` a symbolic link to `target` (which need not exist).
  void link(const std::string &relative, const std::string &target) const {
    std::filesystem::create_directories((root_ / relative).parent_path());
    std::filesystem::create_symlink(target, root_ / relative);
  }

private:
  std::filesystem::path root_;
};

} // namespace mpsaudit::testing
