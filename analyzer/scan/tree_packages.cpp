#include "scan/tree_packages.h"

#include <filesystem>

#include "core/text.h"

namespace mpsaudit {

bool TreePackages::provides(std::string_view module) const {
  const std::string_view top = module.substr(0, module.find('.'));
  // Relative imports (`from . import x`) and names no import statement can
  // spell never name a directory.
  if (root_.empty() || !is_ascii_identifier(top))
    return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto known = answers_.find(top);
  if (known != answers_.end())
    return known->second;
  const std::string name(top);
  const bool provided = is_package_on_disk(name);
  answers_.emplace(name, provided);
  return provided;
}

bool TreePackages::is_package_on_disk(const std::string &name) const {
  namespace fs = std::filesystem;
  for (const char *source_root : {"", "src", "python"}) {
    std::error_code error;
    const fs::path init = fs::path(root_) / source_root / name / "__init__.py";
    if (fs::is_regular_file(init, error))
      return true;
  }
  return false;
}

} // namespace mpsaudit
