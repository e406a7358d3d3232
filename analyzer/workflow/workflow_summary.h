// What the everyday-workflow features did to one scan, for the reports:
// inline suppressions, per-path ignores, the baseline, a partial scan.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "workflow/suppression.h"

namespace mpsaudit {

struct WorkflowSummary {
  SuppressionCounts suppressions;
  // Non-empty for a partial scan (--changed-since, --staged, pre-commit's
  // file list): only those files were read, so the decision and effort
  // cover only them. E.g. "files changed since origin/main".
  std::string partial_scan;
  std::string config_file;  // the config in effect, "" for none
  std::string config_shown; // the same, relative to the current directory
  // The config was found in the scanned tree (or its git work tree), not
  // named with --config: it cannot hide the safety rules' findings.
  bool config_from_tree = false;
  // Safety findings shown although that config's globs, rule selection,
  // per-path ignores or baseline would hide them.
  std::uint32_t safety_kept = 0;
  std::uint32_t path_ignored = 0;   // findings dropped by per-path-ignores
  std::string baseline_file;        // the baseline compared against, "" for none
  std::uint32_t baseline_known = 0; // findings already in it, not reported
  std::uint32_t baseline_fixed = 0; // baseline entries no longer found
  // The probe's coverage table version chosen by the config's target-torch
  // (e.g. "2.6.0"); empty when not set.
  std::string target_torch;
};

} // namespace mpsaudit
