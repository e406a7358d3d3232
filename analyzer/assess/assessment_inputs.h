// What the assessment reads from ScanResult::project_files (component roles,
// kernel sizes, memory fit). A scan that will be assessed passes this as
// ScanOptions::retain_fact, keeps these facts and drops the rest once rules
// have run, which keeps the memory of a large scan flat.
#pragma once

#include "core/fact.h"
#include "scan/scan.h"

namespace mpsaudit {

FactRetention assessment_retention(const Fact &fact);

} // namespace mpsaudit
