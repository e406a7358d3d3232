#include "cli/workflow_options.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include "assess/decision.h"
#include "core/confined_file.h"
#include "core/text.h"
#include "coverage/operator_coverage_pass.h"
#include "workflow/baseline.h"
#include "workflow/git_changes.h"

namespace mpsaudit::cli {
namespace fs = std::filesystem;

namespace {

void print(const std::vector<Diagnostic> &diagnostics) {
  for (const auto &diagnostic : diagnostics) {
    std::cerr << "mpsaudit: "
              << (diagnostic.path.empty() ? std::string("config") : terminal_safe(diagnostic.path));
    if (diagnostic.line)
      std::cerr << ":" << diagnostic.line;
    std::cerr << ": " << terminal_safe(diagnostic.message) << "\n";
  }
}

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

// The coverage tables: installed beside the rules, or in the source tree.
std::string coverage_directory(const Invocation &invocation) {
  if (const char *env = std::getenv("MPSAUDIT_COVERAGE_DIR"); env && *env)
    return env;
  std::string found = locate_data_directory(invocation.executable, "coverage");
  std::error_code error;
  if (found.empty() && fs::is_directory(std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/coverage", error))
    found = std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/coverage";
  return found;
}

// The Python API map and the extra MPS knowledge beside the tables.
std::string probe_data_directory(const Invocation &invocation) {
  std::string found = locate_data_directory(invocation.executable, "probe-data");
  std::error_code error;
  if (found.empty() && fs::is_directory(std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/data", error))
    found = std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/data";
  return found;
}

// pre-commit passes the staged files as arguments. When every path is a file
// inside the current directory, and that directory is in a git work tree
// (listing it is cheap), scan from "." and keep just those files, so paths
// (and baseline keys) are the same as in a full scan of the repository.
bool explicit_file_list(const std::vector<std::string> &paths, std::set<std::string> &files) {
  std::error_code error;
  for (const auto &path : paths) {
    if (!fs::is_regular_file(path, error))
      return false;
    const std::string relative =
        fs::path(path).lexically_normal().lexically_relative(fs::current_path(error)).generic_string();
    const std::string local =
        fs::path(path).is_absolute() ? relative : fs::path(path).lexically_normal().generic_string();
    if (local.empty() || starts_with(local, ".."))
      return false;
    files.insert(local);
  }
  return !files.empty() && inside_git_work_tree(".");
}

// A config that comes with the scanned tree (found above the scanned path, or
// named by --config but lying inside it) is as untrusted as the tree: the
// files it names must stay inside the scanned paths or the config's own
// directory. A config the user keeps elsewhere and names is the user's choice.
std::vector<fs::path> config_confinement(const WorkflowOptions &workflow, const ScanOptions &options) {
  const std::vector<fs::path> scanned = confinement_roots(options.paths);
  if (!workflow.config_path.empty()) {
    std::error_code error;
    const fs::path config = fs::canonical(workflow.config_path, error);
    if (error || !is_within(config, scanned))
      return {};
  }
  std::vector<fs::path> roots = confinement_roots({workflow.config.directory});
  roots.insert(roots.end(), scanned.begin(), scanned.end());
  return roots;
}

// Checks a path the config names (`key` = its value, relative to the config's
// directory); false, with a diagnostic in `refused`, when it is refused.
bool config_path_allowed(const std::string &key, const std::string &value, const ValueSource &source,
                         const std::vector<fs::path> &roots, std::uint64_t max_bytes,
                         std::vector<Diagnostic> &refused) {
  const fs::path config_directory = fs::path(source.file).parent_path();
  std::error_code error;
  const fs::path base = fs::canonical(config_directory.empty() ? fs::path(".") : config_directory, error);
  const ConfinedFile file = read_confined_file(base, value, roots, max_bytes);
  if (file.status == ConfinedStatus::Ok || file.status == ConfinedStatus::Missing)
    return true;
  refused.push_back({DiagnosticLevel::Error, source.file, source.line, "config-path-refused",
                     "`" + key + " = \"" + value + "\"` " + std::string(describe(file.status)) + " (" +
                         file.real_path.string() +
                         "); not read: a config that comes with the scanned tree may name files "
                         "inside it only"});
  return false;
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

bool prepare_workflow(const Invocation &invocation, WorkflowOptions &workflow, ScanOptions &options,
                      RuleCatalog &catalog, std::string &fail_on) {
  std::vector<Diagnostic> problems;
  const std::string first_path = options.paths.empty() ? "." : options.paths.front();

  std::set<std::string> explicit_files;
  const bool file_list = explicit_file_list(options.paths, explicit_files);

  // The config: --config, else the nearest one above the scanned path.
  std::string config_file = workflow.config_path;
  if (config_file.empty() && !workflow.no_config)
    config_file = find_config_file(first_path, problems);
  if (!config_file.empty()) {
    ConfigLoad load = load_config_file(config_file, problems);
    if (!load.has_table && problems.empty() && !workflow.config_path.empty())
      problems.push_back({DiagnosticLevel::Error, config_file, 0, "invalid-config",
                          "no [tool.mpsaudit] table in this pyproject.toml"});
    workflow.config = std::move(load.config);
    if (!load.has_table)
      workflow.config = Config{};
  }
  Config &config = workflow.config;
  // Command-line selection overrides and extends the config.
  if (!workflow.select.empty()) {
    config.enable.value = workflow.select;
    config.enable.source = ValueSource{"command line (--select)", 0};
  }
  if (!workflow.ignore.empty()) {
    for (const auto &selector : workflow.ignore)
      config.disable.value.push_back(selector);
    config.disable.source = ValueSource{"command line (--ignore)", 0};
  }
  for (const Rule &rule : catalog.rules())
    workflow.catalog_rule_ids.insert(rule.id);
  apply_rule_selection(config, catalog, problems);
  if (!config.target_torch.value.empty()) {
    const std::string coverage = coverage_directory(invocation);
    workflow.target_torch_table = config.target_torch.value;
    if (!coverage.empty())
      workflow.target_torch_table = resolve_target_torch(config, coverage, problems);
  }
  // The default scan's MPS operator gaps are looked up for this release.
  configure_operator_coverage(
      {coverage_directory(invocation), probe_data_directory(invocation), config.target_torch.value});
  if (!problems.empty()) {
    print(problems);
    return false;
  }
  if (!workflow.fail_on_given && !config.fail_on.value.empty())
    fail_on = config.fail_on.value;

  // Paths from a config that came with the tree stay inside it.
  if (!config.file.empty()) {
    const std::vector<fs::path> roots = config_confinement(workflow, options);
    if (!roots.empty()) {
      if (!config.baseline.value.empty() &&
          !config_path_allowed("baseline", config.baseline.value, config.baseline.source, roots,
                               options.max_file_bytes, workflow.refused_paths))
        config.baseline.value.clear();
      const auto &effort_model = config.assess.effort_model;
      if (effort_model &&
          !config_path_allowed("assess.effort-model", effort_model->value, effort_model->source, roots,
                               options.max_file_bytes, workflow.refused_paths))
        config.assess.effort_model.reset();
    }
  }

  // The baseline: --baseline, else the config's (relative to the config file).
  if (workflow.baseline_path.empty() && !config.baseline.value.empty() &&
      workflow.write_baseline_path.empty()) {
    const fs::path path = fs::path(config.directory) / config.baseline.value;
    std::error_code error;
    if (fs::is_regular_file(path, error)) {
      workflow.baseline_path = path.string();
      workflow.baseline_from_config = true;
    }
  }

  const std::string scan_root = file_list ? "." : first_path;
  workflow.root_prefix = root_prefix_for(config, scan_root);

  // Changed files through git.
  std::set<std::string> changed;
  bool limit_to_changed = false;
  if (!workflow.changed_since.empty() || workflow.staged) {
    if (options.paths.size() > 1 && !file_list) {
      std::cerr << "mpsaudit: --changed-since and --staged take one scan root\n";
      return false;
    }
    const ChangedFiles files =
        workflow.staged ? staged_files(scan_root) : changed_since(scan_root, workflow.changed_since);
    if (!files.ok) {
      std::cerr << "mpsaudit: " << (workflow.staged ? "--staged" : "--changed-since") << ": "
                << terminal_safe(files.error) << "\n";
      return false;
    }
    changed = files.paths;
    limit_to_changed = true;
    options.partial_scan = workflow.staged ? "staged files only (" + std::to_string(changed.size()) + ")"
                                           : "files changed since " + workflow.changed_since + " (" +
                                                 std::to_string(changed.size()) + ")";
  }
  if (file_list) {
    options.paths = {"."};
    if (options.partial_scan.empty())
      options.partial_scan = std::to_string(explicit_files.size()) + " file" +
                             (explicit_files.size() == 1 ? "" : "s") + " named on the command line";
  }
  // Discovery asks git about these paths alone; listing and stat-ing the
  // whole repository was most of a pre-commit run's time.
  if (limit_to_changed && file_list) {
    std::vector<std::string> both;
    std::set_intersection(changed.begin(), changed.end(), explicit_files.begin(), explicit_files.end(),
                          std::back_inserter(both));
    options.only_paths = std::move(both);
  } else if (limit_to_changed) {
    options.only_paths = std::vector<std::string>(changed.begin(), changed.end());
  } else if (file_list) {
    options.only_paths = std::vector<std::string>(explicit_files.begin(), explicit_files.end());
  }
  const bool has_globs = !config.include.value.empty() || !config.exclude.value.empty();
  if (has_globs || limit_to_changed || file_list) {
    const ConfigPaths paths(config, workflow.root_prefix);
    options.keep_file = [paths, has_globs, limit_to_changed, changed, file_list,
                         explicit_files](const std::string &relative) {
      if (file_list && !explicit_files.count(relative))
        return false;
      if (limit_to_changed && !changed.count(relative))
        return false;
      return !has_globs || paths.keep(relative);
    };
  }
  return true;
}

bool finish_workflow(WorkflowOptions &workflow, ScanResult &result, const RuleCatalog &catalog) {
  const Config &config = workflow.config;
  WorkflowSummary &summary = result.workflow;
  summary.config_file = config.file;
  summary.target_torch = workflow.target_torch_table;
  const ConfigPaths paths(config, workflow.root_prefix);
  result.diagnostics.insert(result.diagnostics.end(), workflow.refused_paths.begin(),
                            workflow.refused_paths.end());

  if (!config.per_path_ignores.empty()) {
    const auto before = result.findings.size();
    result.findings.erase(std::remove_if(result.findings.begin(), result.findings.end(),
                                         [&](const Finding &finding) {
                                           return finding.rule &&
                                                  paths.ignored(finding.path, *finding.rule, catalog);
                                         }),
                          result.findings.end());
    summary.path_ignored = static_cast<std::uint32_t>(before - result.findings.size());
  }

  if (!workflow.write_baseline_path.empty()) {
    const Baseline baseline = make_baseline(result.findings);
    std::ofstream out(workflow.write_baseline_path, std::ios::binary);
    if (!out) {
      std::cerr << "mpsaudit: cannot write " << terminal_safe(workflow.write_baseline_path) << "\n";
      return false;
    }
    write_baseline(out, baseline);
    return true;
  }
  if (workflow.baseline_path.empty())
    return true;
  const std::optional<std::string> text = read_whole_file(workflow.baseline_path);
  if (!text) {
    std::cerr << "mpsaudit: cannot read the baseline " << terminal_safe(workflow.baseline_path) << "\n";
    return false;
  }
  std::vector<Diagnostic> problems;
  const Baseline baseline =
      parse_baseline(*text, workflow.baseline_path, problems, [&](std::string_view rule) {
        return workflow.catalog_rule_ids.count(std::string(rule)) > 0;
      });
  print(problems);
  if (std::any_of(problems.begin(), problems.end(),
                  [](const Diagnostic &problem) { return problem.level == DiagnosticLevel::Error; }))
    return false;
  const fs::path root = fs::path(result.root);
  std::error_code error;
  const fs::path base = fs::is_directory(root, error) ? root : root.parent_path();
  BaselineFilter filter = filter_by_baseline(result.findings, baseline, [&](const std::string &path) {
    std::error_code exists_error;
    return fs::exists(base / path, exists_error);
  });
  summary.baseline_file = workflow.baseline_path;
  summary.baseline_known = filter.known;
  result.baseline_findings = std::move(filter.known_findings);
  // In a partial scan most recorded files were not read: nothing is "fixed".
  summary.baseline_fixed = summary.partial_scan.empty() ? filter.fixed : 0;
  return true;
}

int report_baseline_written(const WorkflowOptions &workflow, const ScanResult &result) {
  std::uint32_t recorded = 0;
  for (const auto &finding : result.findings)
    recorded += finding.suppressed ? 0 : 1;
  std::cerr << "mpsaudit: recorded " << recorded << " finding" << (recorded == 1 ? "" : "s") << " in "
            << workflow.write_baseline_path << "\n";
  return result.has_errors() ? kScanErrors : kClean;
}

} // namespace mpsaudit::cli

namespace mpsaudit::cli {

void print_workflow_notes(const ScanResult &result) {
  const WorkflowSummary &summary = result.workflow;
  if (!summary.partial_scan.empty())
    std::cerr << "mpsaudit: partial scan: " << terminal_safe(summary.partial_scan)
              << "; decision and effort cover these files only\n";
  if (!summary.baseline_file.empty())
    std::cerr << "mpsaudit: " << summary.baseline_known << " known finding"
              << (summary.baseline_known == 1 ? "" : "s") << " from the baseline "
              << terminal_safe(summary.baseline_file) << " not shown"
              << (summary.baseline_fixed
                      ? "; " + std::to_string(summary.baseline_fixed) + " recorded no longer found"
                      : std::string())
              << (summary.baseline_known ? "; the decision and effort still count them" : "") << "\n";
  if (summary.path_ignored)
    std::cerr << "mpsaudit: " << summary.path_ignored << " finding" << (summary.path_ignored == 1 ? "" : "s")
              << " dropped by per-path-ignores in " << terminal_safe(summary.config_file) << "\n";
  if (summary.suppressions.without_reason)
    std::cerr << "mpsaudit: " << summary.suppressions.without_reason << " of "
              << summary.suppressions.directives << " inline suppression"
              << (summary.suppressions.directives == 1 ? "" : "s") << " give no reason\n";
}

std::string repository_prefix(const std::string &scan_root) {
  return git_show_prefix(scan_root);
}

} // namespace mpsaudit::cli

namespace mpsaudit::cli {

DecisionThresholds decision_thresholds(const WorkflowOptions &workflow, const ScanResult &result) {
  DecisionThresholds thresholds;
  const AssessSettings &assess = workflow.config.assess;
  const auto effort = [](const std::optional<Setting<std::string>> &setting, Effort &slot) {
    if (setting)
      if (const auto parsed = effort_from_string(setting->value))
        slot = *parsed;
  };
  const auto roles = [](const std::optional<Setting<std::vector<std::string>>> &setting,
                        std::vector<Role> &slot) {
    if (!setting)
      return;
    slot.clear();
    for (const auto &name : setting->value)
      if (const auto role = role_from_string(name))
        slot.push_back(*role);
  };
  if (assess.adapt_max_hours)
    thresholds.adapt_max_hours = assess.adapt_max_hours->value;
  if (assess.keep_min_hours)
    thresholds.keep_min_hours = assess.keep_min_hours->value;
  effort(assess.blocker_min_effort, thresholds.blocker_min_effort);
  effort(assess.fallback_item_min_effort, thresholds.fallback_item_min_effort);
  effort(assess.training_scale_min_effort, thresholds.training_scale_min_effort);
  if (assess.training_scale_families)
    thresholds.training_scale_families = assess.training_scale_families->value;
  if (assess.training_scale_rules)
    thresholds.training_scale_rules = assess.training_scale_rules->value;
  roles(assess.critical_roles, thresholds.critical_roles);
  roles(assess.peripheral_roles, thresholds.peripheral_roles);
  if (assess.memory_decides)
    thresholds.memory_decides = assess.memory_decides->value;
  // [roles] globs are relative to the config file and follow .gitignore
  // rules; resolve them here, one exact-path override per scanned file.
  if (!workflow.config.roles.empty()) {
    const ConfigPaths paths(workflow.config, workflow.root_prefix);
    for (const auto &file : result.files)
      if (const std::string name = paths.role(file.path); !name.empty())
        if (const auto role = role_from_string(name))
          thresholds.role_overrides.push_back(RoleOverride{file.path, *role});
  }
  return thresholds;
}

void label_partial_scan(Assessment &assessment, const ScanResult &result) {
  const std::string &partial = result.workflow.partial_scan;
  if (partial.empty())
    return;
  assessment.decision.headline += " [partial scan: " + partial + "]";
  assessment.decision.reasons.insert(assessment.decision.reasons.begin(),
                                     "Partial scan (" + partial +
                                         "): the decision and the effort estimate cover only these files; "
                                         "run a full scan for the repository's assessment.");
}

std::string effort_model_path(const WorkflowOptions &workflow) {
  const auto &setting = workflow.config.assess.effort_model;
  if (!setting)
    return {};
  const fs::path path(setting->value);
  return path.is_absolute() ? path.string() : (fs::path(workflow.config.directory) / path).string();
}

} // namespace mpsaudit::cli
