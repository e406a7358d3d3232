// The scan session: every step between the parsed command line and the
// report writers, in one place, for `scan`, `baseline write` and `fix`:
//
//   load the rule and fix catalogs -> apply the config and rule selection ->
//   scan -> per-path ignores and the baseline -> assessment input (effort
//   model, probe verdicts) -> assessment -> environment records.
//
// The CLI parses arguments into a SessionRequest, calls run_session and
// writes the reports of the Session it gets back. Problems (a broken rule
// or fix catalog, a bad config, an unreadable baseline) are printed on
// SessionRequest::diagnostics and end the session as SessionStatus::Refused.
#pragma once

#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assess/decision.h"
#include "config/config.h"
#include "core/temporary_directory.h"
#include "fix/fix.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit {

// The everyday-workflow options of `scan` (and `baseline write`, `fix`): the
// project config, rule selection, changed files, the baseline.
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

  // Resolved by the session.
  Config config;
  // Paths a config inside the scanned tree names outside it (or names a FIFO,
  // a device, an oversized file): refused, and reported with the scan.
  std::vector<Diagnostic> refused_paths;
  std::string root_prefix;
  std::string target_torch_table; // coverage table version for target-torch
  // Every rule ID before selection: baseline entries are checked against it.
  std::set<std::string> catalog_rule_ids;
  // A config from the scanned tree (Config::from_tree) is information, not
  // authority, for the safety rules (Rule::safety): the safety rules it
  // would have turned off, and whether the scan's fail-on is its.
  std::vector<std::string> safety_rules_kept;
  bool fail_on_from_tree = false;
};

// How far a session goes.
enum class SessionGoal {
  Assess,        // `scan`: baseline filter, assessment, environment
  WriteBaseline, // `baseline write`: the baseline file is the report
  Fix,           // `fix`: every finding, no baseline, no assessment
};

struct SessionRequest {
  SessionGoal goal = SessionGoal::Assess;
  std::string executable;    // argv[0]: data and mpsaudit-probe are found beside it
  std::string rules_dir;     // rules/*.toml, fixes.toml, effort.toml
  bool bundled_rules = true; // rules_dir is the installed or source tree's (for report labels)
  std::string tool_version;
  ScanOptions scan;
  WorkflowOptions workflow;
  std::string fail_on = "warning"; // the config's fail-on replaces it unless --fail-on was given
  // `fix` needs rules/fixes.toml; `scan` reads it when present (its effort
  // model credits what fix can do).
  bool fixes_required = false;
  // The command's own checks of its arguments against the loaded catalogs
  // (fix --rule IDs); false ends the session as Refused.
  std::function<bool(const RuleCatalog &, const FixCatalog &)> check_catalogs;
  // Shows the scan's progress (the CLI's progress line): called before the
  // scan with the counters it bumps; what it returns is released when the
  // scan ends. No progress is counted when empty.
  std::function<std::shared_ptr<void>(const ScanProgress &)> show_progress;
  // SessionGoal::Assess only.
  std::string verdicts_path; // --verdicts: mpsaudit-probe's JSON
  bool run_probe = false;    // --probe: run mpsaudit-probe on this scan first
  std::string probe_target = "auto";
  std::vector<std::string> env_paths; // --env: records written by `mpsaudit env`
  // When the command started, for the profile's first phase.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::ostream *diagnostics = &std::cerr;
};

enum class SessionStatus {
  Ok,              // scanned (and assessed, for SessionGoal::Assess)
  BaselineWritten, // SessionGoal::WriteBaseline: the file is written
  Refused,         // a problem was printed; nothing to report (a usage error)
};

// What a session produced. It owns the catalogs the findings point into, so
// it is filled in place and never copied.
struct Session {
  RuleCatalog catalog;
  FixCatalog fixes;
  AssessPolicy policy;      // rules/assess.toml of the rules directory, else the bundled one (run_session)
  WorkflowOptions workflow; // with the resolved config
  ScanOptions options;      // as scanned (a file list becomes ".", with a filter)
  std::string fail_on;      // after the config
  ScanResult result;
  // The scan read no file: no assessment, and this says why.
  bool nothing_scanned = false;
  std::string no_decision_reason;
  Assessment assessment;
  // SessionGoal::Fix: the files the assessment gives the test role (by path
  // or the config's [roles]), which fix leaves alone unless asked.
  std::set<std::string> test_files;
  // `--env`: the report's environment section; null without --env.
  nlohmann::json environment;
  // --probe's report and verdicts, removed with the session.
  std::optional<TemporaryDirectory> probe_directory;

  Session() = default;
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
};

SessionStatus run_session(SessionRequest request, Session &session);

// Loads rules/*.toml from `directory`; prints problems on `diagnostics` and
// returns false on any (also for `rules` and `explain`).
// `cache_directory`, when given, keeps a parsed snapshot of the catalog
// (scan/catalog_snapshot.h).
bool load_rule_catalog(const std::string &directory, RuleCatalog &catalog, std::ostream &diagnostics,
                       const std::string &cache_directory = {});

// The assessment's knobs from the config's [assess] table over their
// defaults, with [roles] resolved for the scanned files
// (AssessmentInput::thresholds).
DecisionThresholds decision_thresholds(const WorkflowOptions &workflow, const RuleCatalog &catalog,
                                       const ScanResult &result);
// The config's [roles], one exact-path override per scanned file
// (DecisionThresholds::role_overrides).
std::vector<RoleOverride> role_overrides(const WorkflowOptions &workflow, const ScanResult &result);

// A partial scan labels its decision and effort: the headline and the first
// reason say which files they cover, in every report format.
void label_partial_scan(Assessment &assessment, const ScanResult &result);

} // namespace mpsaudit
