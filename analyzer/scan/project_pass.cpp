#include "scan/project_pass.h"

namespace mpsaudit {

// Passes run in this order, once per scan, after extraction.
const std::vector<ProjectPass> &project_passes() {
  static const std::vector<ProjectPass> passes{};
  return passes;
}

} // namespace mpsaudit
