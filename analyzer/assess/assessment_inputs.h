// The fact kinds the assessment reads from ScanResult::project_files
// (component roles, kernel sizes, memory fit). A scan that will be assessed
// keeps these and drops the rest once rules have run.
#pragma once

#include <string>
#include <vector>

namespace mpsaudit {

std::vector<std::string> assessment_fact_kinds();

} // namespace mpsaudit
