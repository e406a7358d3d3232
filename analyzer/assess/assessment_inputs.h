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

struct AssessPolicy; // assess/assess_policy.h: which shell commands launch scripts

FactRetention assessment_retention(const Fact &fact, const AssessPolicy &policy);
// The result cache's name of that retention (ScanOptions::retain_fact_name):
// "assessment", and the launchers the policy keeps shell lines of.
std::string assessment_retention_name(const AssessPolicy &policy);

// Words a Python file must contain for the assessment to use any of its facts
// beyond its imports' own words (ScanOptions::retain_fact_python_triggers).
std::vector<std::string> assessment_python_triggers();

} // namespace mpsaudit
