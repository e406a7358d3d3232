#include "scan/project_pass.h"

#include "frontend/frontend.h"

namespace mpsaudit {

// Passes come with the front ends that understand their facts; the registry
// (frontend/registry.cpp) lists those compiled into this build.
const std::vector<ProjectPass> &project_passes() { return frontend_project_passes(); }

} // namespace mpsaudit
