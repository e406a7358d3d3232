#include "cli/workflow_options.h"

#include <iostream>
#include <sstream>

#include "cli/cli.h"
#include "core/text.h"

namespace mpsaudit::cli {

namespace {

std::vector<std::string> split_list(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    const std::string trimmed(trim(item));
    if (!trimmed.empty())
      out.push_back(trimmed);
  }
  return out;
}

} // namespace

bool parse_workflow_option(Arguments &args, WorkflowOptions &workflow, std::string &error) {
  std::string value;
  if (args.option("--config", value)) {
    workflow.config_path = value;
  } else if (args.flag("--no-config")) {
    workflow.no_config = true;
  } else if (args.option("--baseline", value)) {
    workflow.baseline_path = value;
  } else if (args.option("--write-baseline", value)) {
    workflow.write_baseline_path = value;
  } else if (args.option("--changed-since", value)) {
    workflow.changed_since = value;
  } else if (args.flag("--staged")) {
    workflow.staged = true;
  } else if (args.option("--select", value)) {
    for (auto &item : split_list(value))
      workflow.select.push_back(item);
    if (workflow.select.empty())
      error = "--select needs rule IDs, prefixes or family names";
  } else if (args.option("--ignore", value)) {
    for (auto &item : split_list(value))
      workflow.ignore.push_back(item);
  } else {
    return false;
  }
  if (error.empty() && !args.error().empty())
    error = args.error();
  return true;
}

int report_baseline_written(const WorkflowOptions &workflow, const ScanResult &result) {
  std::uint32_t recorded = 0;
  for (const auto &finding : result.findings)
    recorded += finding.suppressed ? 0 : 1;
  std::cerr << "mpsaudit: recorded " << counted(recorded, "finding") << " in " << workflow.write_baseline_path
            << "\n";
  return result.has_errors() ? kScanErrors : kClean;
}

void print_workflow_notes(const ScanResult &result) {
  const WorkflowSummary &summary = result.workflow;
  if (!summary.partial_scan.empty())
    std::cerr << "mpsaudit: partial scan: " << terminal_safe(summary.partial_scan)
              << "; decision and effort cover these files only\n";
  if (!summary.baseline_file.empty())
    std::cerr << "mpsaudit: " << counted(summary.baseline_known, "known finding") << " from the baseline "
              << terminal_safe(summary.baseline_file) << " not shown"
              << (summary.baseline_fixed
                      ? "; " + std::to_string(summary.baseline_fixed) + " recorded no longer found"
                      : std::string())
              << (summary.baseline_known ? "; the decision and effort still count them" : "") << "\n";
  if (summary.path_ignored)
    std::cerr << "mpsaudit: " << counted(summary.path_ignored, "finding")
              << " dropped by per-path-ignores in " << terminal_safe(summary.config_file) << "\n";
  if (summary.safety_kept)
    std::cerr << "mpsaudit: " << counted(summary.safety_kept, "safety finding") << " shown although "
              << terminal_safe(summary.config_shown) << ", found in the scanned tree, would hide "
              << (summary.safety_kept == 1 ? "it" : "them")
              << ": only --config, --select, --ignore, --baseline or --fail-on can\n";
  if (summary.suppressions.without_reason)
    std::cerr << "mpsaudit: " << summary.suppressions.without_reason << " of "
              << counted(summary.suppressions.directives, "inline suppression") << " give no reason\n";
}

} // namespace mpsaudit::cli
