// The Python packages the scanned tree provides itself. An import of one of
// them is first-party: when the tree is mamba_ssm or apex, `import apex.x`
// reads the tree's own sources, which the front ends analyse file by file,
// not the CUDA-only package that the library rules warn about. So the import
// rules (rules/libraries.toml) never meet such an import; the dependency
// pass has always treated the tree's own modules the same way.
//
// A package is a directory holding `__init__.py` at the tree's root or under
// `src/` or `python/` (the flat and src layouts). A copy deeper in the tree
// (`third_party/apex/apex/`) is a vendored library, not the tree's package.
// The answer comes from the file system, not the discovered files, so a
// pre-commit scan of a few staged files answers as a scan of the whole tree.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace mpsaudit {

class TreePackages {
public:
  explicit TreePackages(std::string root) : root_(std::move(root)) {}

  // Whether the top-level module of `module` ("apex" of "apex.normalization")
  // is a package of the tree. Safe to call from several threads.
  bool provides(std::string_view module) const;

private:
  bool is_package_on_disk(const std::string &name) const;

  std::string root_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, bool, std::less<>> answers_;
};

} // namespace mpsaudit
