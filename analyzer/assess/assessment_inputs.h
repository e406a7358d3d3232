// What the assessment reads from ScanResult::project_files (component roles,
// kernel sizes, memory fit). A scan that will be assessed passes this as
// ScanOptions::retain_fact, keeps these facts and drops the rest once rules
// have run, which keeps the memory of a large scan flat.
#pragma once

#include <string>
#include <vector>

#include "core/fact.h"
#include "scan/scan.h"

namespace mpsaudit {

FactRetention assessment_retention(const Fact &fact);

// Words a Python file must contain for the assessment to use any of its facts
// beyond its imports' own words (ScanOptions::retain_fact_python_triggers).
std::vector<std::string> assessment_python_triggers();

} // namespace mpsaudit
