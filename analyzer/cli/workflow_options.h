// The everyday-workflow options of `scan` (and `baseline write`): the
// project config, rule selection, changed files, the baseline. They wrap
// the scan: prepare_workflow before run_scan, finish_workflow after.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "config/config.h"
#include "scan/scan.h"

namespace mpsaudit {
struct Assessment;
struct DecisionThresholds;
} // namespace mpsaudit

namespace mpsaudit::cli {

struct WorkflowOptions {
  std::string config_path;   // --config FILE
  bool no_config = false;    // --no-config
  std::string baseline_path; // --baseline FILE (or the config's `baseline`)
  bool baseline_from_config = false;
  std::string write_baseline_path; // `baseline write FILE`
  std::string changed_since;       // --changed-since REV
  bool staged = false;             // --staged
  std::vector<std::string> select; // --select: replaces rules.enable
  std::vector<std::string> ignore; // --ignore: adds to rules.disable
  bool fail_on_given = false;

  // Resolved by prepare_workflow.
  Config config;
  // Paths a config inside the scanned tree names outside it (or names a FIFO,
  // a device, an oversized file): refused, and reported with the scan.
  std::vector<Diagnostic> refused_paths;
  std::string root_prefix;
  std::string target_torch_table; // coverage table version for target-torch
  // Every rule ID before selection: baseline entries are checked against it.
  std::set<std::string> catalog_rule_ids;
};

// Consumes the current argument when it is a workflow option; `error` is set
// when its value is missing or bad.
bool parse_workflow_option(Arguments &args, WorkflowOptions &workflow, std::string &error);

// Finds and loads the config, applies rule selection to `catalog`, and sets
// the file filter (include/exclude, changed files, an explicit file list) on
// `options`; `fail_on` takes the config's value unless --fail-on was given.
// Prints problems and returns false on any (a usage error).
bool prepare_workflow(const Invocation &invocation, WorkflowOptions &workflow, ScanOptions &options,
                      RuleCatalog &catalog, std::string &fail_on);

// After the scan: per-path ignores, role overrides, and the baseline (which
// removes known findings, or, for `baseline write`, is written). Returns
// false after printing a problem.
bool finish_workflow(WorkflowOptions &workflow, ScanResult &result, const RuleCatalog &catalog);

// `baseline write`: says what was recorded; the exit code of the command.
int report_baseline_written(const WorkflowOptions &workflow, const ScanResult &result);

// Notes on stderr after a scan: partial scan, baseline, suppressions without
// a reason, per-path ignores (the writers may show them too).
void print_workflow_notes(const ScanResult &result);

// The scan root relative to the top of its git work tree ("" outside one), so
// that GitHub annotations name files as the repository does.
std::string repository_prefix(const std::string &scan_root);

// The assessment's knobs from the config's [assess] table over their
// defaults, with [roles] resolved for the scanned files
// (AssessmentInput::thresholds).
DecisionThresholds decision_thresholds(const WorkflowOptions &workflow, const ScanResult &result);
// The config's assess.effort-model, relative to the config file; "" if unset.
std::string effort_model_path(const WorkflowOptions &workflow);

// A partial scan labels its decision and effort: the headline and the first
// reason say which files they cover, in every report format.
void label_partial_scan(Assessment &assessment, const ScanResult &result);

} // namespace mpsaudit::cli
