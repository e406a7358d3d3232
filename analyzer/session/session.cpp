#include "session/session.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <system_error>

#include "acceptance/disagreements.h"
#include "acceptance/env_record.h"
#include "assess/assessment_inputs.h"
#include "assess/roles.h"
#include "core/confined_file.h"
#include "core/text.h"
#include "coverage/operator_coverage_pass.h"
#include "frontend/manifest/package_knowledge.h"
#include "report/report.h"
#include "scan/bundle/bundled_catalog.h"
#include "scan/catalog_snapshot.h"
#include "session/probe_runner.h"
#include "workflow/baseline.h"
#include "workflow/git_changes.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

// The coverage tables: installed beside the rules, or in the source tree.
std::string coverage_directory(const std::string &executable) {
  if (const char *env = std::getenv("MPSAUDIT_COVERAGE_DIR"); env && *env)
    return env;
  std::string found = locate_data_directory(executable, "coverage");
  std::error_code error;
  if (found.empty() && fs::is_directory(std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/coverage", error))
    found = std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe/coverage";
  return found;
}

// The Python API map and the extra MPS knowledge beside the tables.
std::string probe_data_directory(const std::string &executable) {
  std::string found = locate_data_directory(executable, "probe-data");
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

// --select replaces the config's rules.enable; --ignore adds to rules.disable.
void add_command_line_selection(const WorkflowOptions &workflow, Config &config) {
  if (!workflow.select.empty()) {
    config.enable.value = workflow.select;
    config.enable.source = ValueSource{"command line (--select)", 0};
  }
  if (!workflow.ignore.empty()) {
    for (const auto &selector : workflow.ignore)
      config.disable.value.push_back(selector);
    config.disable.source = ValueSource{"command line (--ignore)", 0};
  }
}

// The file kinds the catalog's safety rules read.
std::set<FileKind> safety_file_kinds(const RuleCatalog &catalog) {
  std::set<FileKind> kinds;
  for (const Rule &rule : catalog.rules())
    if (rule.safety)
      kinds.insert(rule.kinds.begin(), rule.kinds.end());
  return kinds;
}

// Finds and loads the config, applies rule selection to `catalog`, and sets
// the file filter (include/exclude, changed files, an explicit file list) on
// `options`; `fail_on` takes the config's value unless --fail-on was given.
// Prints problems and returns false on any.
bool prepare_workflow(const std::string &executable, WorkflowOptions &workflow, ScanOptions &options,
                      RuleCatalog &catalog, std::string &fail_on, std::ostream &err) {
  std::vector<Diagnostic> problems;
  const std::string first_path = options.paths.empty() ? "." : options.paths.front();

  std::set<std::string> explicit_files;
  const bool file_list = explicit_file_list(options.paths, explicit_files);

  // The config: --config, else the nearest one above the scanned path, up to
  // the scanned root or the top of its git work tree.
  std::string config_file = workflow.config_path;
  const bool searched = config_file.empty() && !workflow.no_config;
  if (searched)
    config_file = find_config_file(first_path, problems);
  if (!config_file.empty()) {
    ConfigLoad load = load_config_file(config_file, problems);
    if (!load.has_table && problems.empty() && !workflow.config_path.empty())
      problems.push_back({DiagnosticLevel::Error, config_file, 0, "invalid-config",
                          "no [tool.mpsaudit] table in this pyproject.toml"});
    workflow.config = std::move(load.config);
    if (!load.has_table)
      workflow.config = Config{};
    workflow.config.from_tree = searched && load.has_table;
  }
  Config &config = workflow.config;
  // What the user chose (the command line, and a config the user named): it
  // alone may turn the safety rules off.
  Config user_choice = config.from_tree ? Config{} : config;
  add_command_line_selection(workflow, config);
  add_command_line_selection(workflow, user_choice);
  for (const Rule &rule : catalog.rules())
    workflow.catalog_rule_ids.insert(rule.id);
  workflow.safety_rules_kept = apply_rule_selection(config, user_choice, catalog, problems);
  if (!config.target_torch.value.empty()) {
    const std::string coverage = coverage_directory(executable);
    workflow.target_torch_table = config.target_torch.value;
    if (!coverage.empty())
      workflow.target_torch_table = resolve_target_torch(config, coverage, problems);
  }
  // The default scan's MPS operator gaps are looked up for this release.
  configure_operator_coverage(
      {coverage_directory(executable), probe_data_directory(executable), config.target_torch.value});
  if (!problems.empty()) {
    print_config_problems(err, problems);
    return false;
  }
  if (!workflow.fail_on_given && !config.fail_on.value.empty()) {
    fail_on = config.fail_on.value;
    workflow.fail_on_from_tree = config.from_tree;
  }

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
      err << "mpsaudit: --changed-since and --staged take one scan root\n";
      return false;
    }
    const ChangedFiles files =
        workflow.staged ? staged_files(scan_root) : changed_since(scan_root, workflow.changed_since);
    if (!files.ok) {
      err << "mpsaudit: " << (workflow.staged ? "--staged" : "--changed-since") << ": "
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
      options.partial_scan = counted(explicit_files.size(), "file") + " named on the command line";
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
    // The user's own narrowing: a partial scan or a list of files.
    const auto asked_for = [limit_to_changed, changed, file_list,
                            explicit_files](const std::string &relative) {
      return (!file_list || explicit_files.count(relative)) && (!limit_to_changed || changed.count(relative));
    };
    options.keep_file = [paths, has_globs, asked_for](const std::string &relative) {
      return asked_for(relative) && (!has_globs || paths.keep(relative));
    };
    // The tree's globs do not keep the safety rules from their files.
    const std::set<FileKind> safety_kinds = safety_file_kinds(catalog);
    if (has_globs && config.from_tree && !safety_kinds.empty())
      options.keep_for_safety = [asked_for, safety_kinds](const std::string &relative, FileKind kind) {
        return asked_for(relative) && safety_kinds.count(kind) > 0;
      };
  }
  return true;
}

// After the scan: per-path ignores, role overrides, and the baseline (which
// removes known findings, or, for `baseline write`, is written). Returns
// false after printing a problem.
bool finish_workflow(WorkflowOptions &workflow, ScanResult &result, const RuleCatalog &catalog,
                     std::ostream &err) {
  const Config &config = workflow.config;
  WorkflowSummary &summary = result.workflow;
  summary.config_file = config.file;
  summary.config_shown = shown_from_here(config.file);
  summary.config_from_tree = config.from_tree;
  summary.target_torch = workflow.target_torch_table;
  const ConfigPaths paths(config, workflow.root_prefix);
  result.diagnostics.insert(result.diagnostics.end(), workflow.refused_paths.begin(),
                            workflow.refused_paths.end());

  // A config from the tree is information, not authority, for the safety rules.
  const auto exempt = [&](const Finding &finding) {
    return config.from_tree && finding.rule && finding.rule->safety;
  };
  // What such a config would have hidden of a safety finding: its file, its
  // rule or, by a per-path ignore, the two together.
  const std::set<std::string> rules_kept(workflow.safety_rules_kept.begin(),
                                         workflow.safety_rules_kept.end());
  const auto tree_would_hide = [&](const Finding &finding) {
    return !paths.keep(finding.path) || rules_kept.count(finding.rule_id) ||
           paths.ignored(finding.path, *finding.rule, catalog);
  };
  summary.safety_kept = static_cast<std::uint32_t>(
      std::count_if(result.findings.begin(), result.findings.end(),
                    [&](const Finding &finding) { return exempt(finding) && tree_would_hide(finding); }));

  if (!config.per_path_ignores.empty()) {
    const auto before = result.findings.size();
    result.findings.erase(std::remove_if(result.findings.begin(), result.findings.end(),
                                         [&](const Finding &finding) {
                                           return finding.rule && !exempt(finding) &&
                                                  paths.ignored(finding.path, *finding.rule, catalog);
                                         }),
                          result.findings.end());
    summary.path_ignored = static_cast<std::uint32_t>(before - result.findings.size());
  }

  if (!workflow.write_baseline_path.empty()) {
    const Baseline baseline = make_baseline(result.findings);
    std::ofstream out(workflow.write_baseline_path, std::ios::binary);
    if (!out) {
      err << "mpsaudit: cannot write " << terminal_safe(workflow.write_baseline_path) << "\n";
      return false;
    }
    write_baseline(out, baseline);
    return true;
  }
  if (workflow.baseline_path.empty())
    return true;
  const std::optional<std::string> text = read_whole_file(workflow.baseline_path);
  if (!text) {
    err << "mpsaudit: cannot read the baseline " << terminal_safe(workflow.baseline_path) << "\n";
    return false;
  }
  std::vector<Diagnostic> problems;
  const Baseline baseline =
      parse_baseline(*text, workflow.baseline_path, problems, [&](std::string_view rule) {
        return workflow.catalog_rule_ids.count(std::string(rule)) > 0;
      });
  print_config_problems(err, problems);
  if (has_error(problems))
    return false;
  const fs::path root = fs::path(result.root);
  std::error_code error;
  const fs::path base = fs::is_directory(root, error) ? root : root.parent_path();
  BaselineFilter filter = filter_by_baseline(result.findings, baseline, [&](const std::string &path) {
    std::error_code exists_error;
    return fs::exists(base / path, exists_error);
  });
  // The tree's own baseline does not make its safety findings "known".
  if (workflow.baseline_from_config) {
    auto &known = filter.known_findings;
    const auto first_exempt = std::stable_partition(known.begin(), known.end(),
                                                    [&](const Finding &finding) { return !exempt(finding); });
    for (auto finding = first_exempt; finding != known.end(); ++finding) {
      summary.safety_kept += tree_would_hide(*finding) ? 0 : 1;
      result.findings.push_back(std::move(*finding));
    }
    filter.known -= static_cast<std::uint32_t>(known.end() - first_exempt);
    known.erase(first_exempt, known.end());
    std::sort(result.findings.begin(), result.findings.end(), finding_less);
  }
  summary.baseline_file = workflow.baseline_path;
  summary.baseline_known = filter.known;
  result.baseline_findings = std::move(filter.known_findings);
  // In a partial scan most recorded files were not read: nothing is "fixed".
  summary.baseline_fixed = summary.partial_scan.empty() ? filter.fixed : 0;
  return true;
}

// The config's assess.effort-model, relative to the config file; "" if unset.
std::string effort_model_path(const WorkflowOptions &workflow) {
  const auto &setting = workflow.config.assess.effort_model;
  if (!setting)
    return {};
  const fs::path path(setting->value);
  return path.is_absolute() ? path.string() : (fs::path(workflow.config.directory) / path).string();
}

// Writes this scan's JSON report to a temporary directory, runs
// mpsaudit-probe on it and returns the path of the verdicts it wrote there
// ("" on failure, reported). `directory` holds both until the caller's scope
// ends, on every way out of it.
std::string probe_this_scan(const SessionRequest &request, const ScanResult &result,
                            const RuleCatalog &catalog, const std::string &torch_version,
                            std::optional<TemporaryDirectory> &directory, std::ostream &err) {
  const std::string binary = find_probe_binary(request.executable);
  if (binary.empty()) {
    err << "mpsaudit: --probe needs mpsaudit-probe, which is built only where LibTorch is found "
           "(docs/runtime-probe.md)\n";
    return {};
  }
  directory.emplace("mpsaudit-probe-");
  if (!directory->created()) {
    err << "mpsaudit: cannot create a temporary directory for the probe\n";
    return {};
  }
  const std::string report_path = directory->path() + "/report.json";
  const std::string verdicts = directory->path() + "/verdicts.json";
  ReportContext context{request.tool_version, &catalog};
  {
    std::ofstream report(report_path);
    write_json_report(report, result, context);
  }
  std::vector<std::string> arguments{"--target", request.probe_target, "-o", verdicts};
  if (!torch_version.empty())
    arguments.insert(arguments.end(), {"--torch-version", torch_version});
  arguments.push_back(report_path);
  const int status = run_program(binary, arguments);
  if (status != 0 || !std::filesystem::exists(verdicts)) {
    err << "mpsaudit: mpsaudit-probe failed (exit " << status << ")\n";
    return {};
  }
  return verdicts;
}

// The `environment` section of the report: the interpreters recorded by
// `mpsaudit env` and what they (and the probe, when it ran) disagree on.
// Null after printing the problem when a record cannot be read.
nlohmann::json environment_section(const std::vector<std::string> &env_paths,
                                   const std::string &verdicts_path, std::ostream &err) {
  std::vector<acceptance::InterpreterRecord> interpreters;
  for (const auto &path : env_paths) {
    std::ifstream in(path);
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    std::string error;
    const auto record = json.is_discarded() ? std::nullopt : acceptance::env_record_from_json(json, error);
    if (!record) {
      err << "mpsaudit: " << terminal_safe(path) << ": not an environment record"
          << (error.empty() ? "" : " (" + terminal_safe(error) + ")") << "\n";
      return nullptr;
    }
    interpreters.insert(interpreters.end(), record->interpreters.begin(), record->interpreters.end());
  }
  nlohmann::json probe;
  if (!verdicts_path.empty()) {
    std::ifstream in(verdicts_path);
    probe = nlohmann::json::parse(in, nullptr, false);
  }
  const bool has_probe = !verdicts_path.empty() && !probe.is_discarded();
  nlohmann::json section{{"interpreters", nlohmann::json::array()},
                         {"disagreements", nlohmann::json::array()}};
  for (const auto &interpreter : interpreters)
    section["interpreters"].push_back(acceptance::to_json(interpreter));
  for (const auto &disagreement :
       acceptance::find_disagreements(interpreters, has_probe ? &probe : nullptr)) {
    section["disagreements"].push_back(acceptance::to_json(disagreement));
    err << "mpsaudit: environment " << terminal_safe(disagreement.severity) << ": "
        << terminal_safe(disagreement.message) << "\n";
  }
  return section;
}

// Why a scan that read no file gives no decision: what was found instead.
std::string nothing_to_scan_reason(const ScanResult &result) {
  std::string reason = "nothing to scan in " + result.root + ": no file could be read";
  if (!result.skipped.empty())
    reason += "; " + skipped_line(result);
  if (result.not_selected)
    reason += "; " + std::to_string(result.not_selected) + " left out by include/exclude or the change set";
  return reason;
}

// The assessment reads every finding, the baseline's known ones too, so
// that a baseline filters what is reported as new but never hides the
// port's size or blockers. The known findings join the reported ones for
// the assessment alone: a copy of the scan would double its memory.
Assessment assess_with_known_findings(const AssessmentInput &input, ScanResult &result) {
  const auto reported = static_cast<std::ptrdiff_t>(result.findings.size());
  result.findings.insert(result.findings.end(), result.baseline_findings.begin(),
                         result.baseline_findings.end());
  Assessment assessment = assess(input);
  result.findings.erase(result.findings.begin() + reported, result.findings.end());
  return assessment;
}

// The effort model as reports name it: the bundled model by its place in
// the source tree and the install (rules/effort.toml), never by the
// absolute path of the machine that built the binary.
std::string effort_model_label(const std::string &model_path, bool bundled) {
  return bundled ? "rules/effort.toml" : model_path;
}

// Prints each problem as `path:line: message`; true when there was none.
bool print_problems(const std::vector<Diagnostic> &problems, std::ostream &err) {
  for (const auto &problem : problems)
    err << terminal_safe(problem.path) << ":" << problem.line << ": " << terminal_safe(problem.message)
        << "\n";
  return problems.empty();
}

} // namespace

bool load_rule_catalog(const std::string &directory, RuleCatalog &catalog, std::ostream &diagnostics,
                       const std::string &cache_directory) {
  if (directory.empty()) {
    diagnostics << "mpsaudit: cannot find the rules directory; pass --rules-dir or set MPSAUDIT_RULES_DIR\n";
    return false;
  }
  std::vector<Diagnostic> problems;
  catalog = load_rule_catalog_via_snapshots(directory, cache_directory, bundled_rule_catalog(), problems);
  return print_problems(problems, diagnostics);
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// rules/fixes.toml: `fix` needs it; a scan without one (a rules directory of
// the user's own) credits no fix. A file that is there but broken is an
// error either way, never an empty catalog.
bool load_fix_catalog(const SessionRequest &request, FixCatalog &fixes, std::ostream &err) {
  const std::string path = request.rules_dir + "/fixes.toml";
  std::error_code error;
  if (!request.fixes_required && !fs::exists(path, error))
    return true;
  std::vector<Diagnostic> problems;
  fixes = FixCatalog::load_file(path, problems);
  return print_problems(problems, err);
}

// rules/assess.toml, the assessment's vocabulary: a rules directory of the
// user's own without one keeps the bundled policy; a file that is there but
// broken is an error, as fixes.toml's is.
bool load_assess_policy_file(const SessionRequest &request, AssessPolicy &policy, std::ostream &err) {
  const std::string path = request.rules_dir + "/assess.toml";
  std::error_code error;
  if (!fs::exists(path, error)) {
    policy = bundled_assess_policy();
    return true;
  }
  std::vector<Diagnostic> problems;
  policy = load_assess_policy(path, problems);
  return print_problems(problems, err);
}

// The assessment's input: effort model (rules/effort.toml or the config's),
// the config's decision thresholds, the probe's verdicts when given or run.
// False after printing a problem.
bool assessment_input(const SessionRequest &request, Session &session, const ScanResult &assessed,
                      AssessmentInput &input, std::ostream &err) {
  const ScanResult &result = session.result;
  input.scan = &assessed;
  input.thresholds = decision_thresholds(session.workflow, session.catalog, result);
  input.fix_target_torch = session.workflow.config.target_torch.value; // as `mpsaudit fix` reads it
  input.fixes = &session.fixes;
  input.policy = &session.policy;
  std::vector<Diagnostic> problems;
  std::string effort_model = effort_model_path(session.workflow);
  const bool bundled_model = effort_model.empty() && request.bundled_rules;
  if (effort_model.empty())
    effort_model = request.rules_dir + "/effort.toml";
  input.model = load_effort_model(effort_model, problems);
  input.model.origin = effort_model_label(effort_model, bundled_model);
  std::string verdicts_path = request.verdicts_path;
  if (request.run_probe) {
    verdicts_path = probe_this_scan(request, result, session.catalog, session.workflow.target_torch_table,
                                    session.probe_directory, err);
    if (verdicts_path.empty())
      return false;
  }
  if (!verdicts_path.empty())
    input.probe = load_probe_verdicts(verdicts_path, problems);
  for (const auto &problem : problems)
    err << "mpsaudit: " << terminal_safe(problem.path)
        << (problem.line ? ":" + std::to_string(problem.line) : "") << ": " << terminal_safe(problem.message)
        << "\n";
  if (!problems.empty())
    return false;
  if (!request.env_paths.empty()) {
    session.environment = environment_section(request.env_paths, verdicts_path, err);
    if (session.environment.is_null())
      return false;
  }
  return true;
}

// The scan, its progress shown while it runs when the caller asks.
ScanResult scan_with_progress(const SessionRequest &request, ScanOptions &options,
                              const RuleCatalog &catalog) {
  if (!request.show_progress)
    return run_scan(options, catalog);
  ScanProgress progress;
  options.progress = &progress;
  ScanResult result;
  {
    const std::shared_ptr<void> shown = request.show_progress(progress);
    result = run_scan(options, catalog);
  }
  options.progress = nullptr;
  return result;
}

// Files the assessment gives the test role (by path, or by the config's
// [roles]).
std::set<std::string> test_files(const WorkflowOptions &workflow, const ScanResult &result,
                                 const AssessPolicy &policy) {
  std::set<std::string> tests;
  for (const FileRole &role : classify_roles(result.project_files, role_overrides(workflow, result), policy))
    if (role.role == Role::Tests)
      tests.insert(role.path);
  return tests;
}

// Loads what every scan reads, the operator-coverage tables and the
// package knowledge base, on a thread of its own while the session reads
// the rules and the files.
void prefetch_scan_data(OperatorCoverageSettings coverage) {
  configure_operator_coverage(std::move(coverage));
  // The destructor of a future from std::async waits for the thread, so the
  // process never exits while it still runs.
  static std::future<void> background;
  try {
    background = std::async(std::launch::async, [] {
      preload_operator_coverage();
      manifest::package_knowledge();
    });
  } catch (const std::system_error &) {
    // No thread to spare: the first lookups load them instead.
  }
}

} // namespace

SessionStatus run_session(SessionRequest request, Session &session) {
  std::ostream &err = *request.diagnostics;
  prefetch_scan_data({coverage_directory(request.executable), probe_data_directory(request.executable), ""});
  if (!load_rule_catalog(request.rules_dir, session.catalog, err, request.scan.cache_directory))
    return SessionStatus::Refused;
  if (!load_fix_catalog(request, session.fixes, err) ||
      !load_assess_policy_file(request, session.policy, err))
    return SessionStatus::Refused;
  if (request.check_catalogs && !request.check_catalogs(session.catalog, session.fixes))
    return SessionStatus::Refused;
  session.workflow = std::move(request.workflow);
  session.options = std::move(request.scan);
  // Fix edits a file only while it holds the bytes the scan read (fix/fix.h).
  session.options.keep_content_digests = request.goal == SessionGoal::Fix;
  if (request.goal != SessionGoal::Fix) { // fix reads findings only; the assessment reads these facts
    session.options.retain_fact = [&policy = session.policy](const Fact &fact) {
      return assessment_retention(fact, policy);
    };
    session.options.retain_fact_name = assessment_retention_name(session.policy);
    session.options.retain_fact_python_triggers = assessment_python_triggers();
  }
  session.fail_on = request.fail_on;
  if (!prepare_workflow(request.executable, session.workflow, session.options, session.catalog,
                        session.fail_on, err))
    return SessionStatus::Refused;
  const double setup_seconds = seconds_since(request.started);
  ScanResult &result = session.result;
  result = scan_with_progress(request, session.options, session.catalog);
  if (!result.cache_note.empty()) // once, as soon as the scan knows it
    err << terminal_safe(result.cache_note) << "\n";
  result.profile.phases.insert(result.profile.phases.begin(), {"load rules and config", setup_seconds});
  auto phase_started = std::chrono::steady_clock::now();
  if (request.goal == SessionGoal::Fix) {
    // A baseline hides known findings from reports; fix still fixes them.
    session.workflow.baseline_path.clear();
    session.workflow.baseline_from_config = false;
  }
  if (!finish_workflow(session.workflow, result, session.catalog, err))
    return SessionStatus::Refused;
  if (request.goal == SessionGoal::WriteBaseline)
    return SessionStatus::BaselineWritten;
  if (request.goal == SessionGoal::Fix) {
    session.test_files = test_files(session.workflow, result, session.policy);
    return SessionStatus::Ok;
  }
  // A scan that read nothing has nothing to decide: no decision is better
  // than "ADAPT, 0 h". A partial scan with no changed file is normal.
  session.nothing_scanned = result.scanned_file_count() == 0;
  if (session.nothing_scanned) {
    session.no_decision_reason = nothing_to_scan_reason(result);
    err << "mpsaudit: " << terminal_safe(session.no_decision_reason) << "\n";
  }
  AssessmentInput input;
  if (!assessment_input(request, session, result, input, err))
    return SessionStatus::Refused;
  result.profile.phases.emplace_back("baseline, config, effort model, probe", seconds_since(phase_started));
  phase_started = std::chrono::steady_clock::now();
  session.assessment = assess_with_known_findings(input, result);
  demote_errors_off_entry_paths(result.findings, session.assessment);
  label_partial_scan(session.assessment, result); // --changed-since, --staged, named files
  result.profile.phases.emplace_back("assess", seconds_since(phase_started));
  return SessionStatus::Ok;
}

DecisionThresholds decision_thresholds(const WorkflowOptions &workflow, const RuleCatalog &catalog,
                                       const ScanResult &result) {
  DecisionThresholds thresholds;
  take_training_scale(catalog, thresholds);
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
  // A setting the config gives replaces the default as it is.
  const auto take = [](const auto &setting, auto &slot) {
    if (setting)
      slot = setting->value;
  };
  take(assess.adapt_max_hours, thresholds.adapt_max_hours);
  take(assess.keep_min_hours, thresholds.keep_min_hours);
  effort(assess.blocker_min_effort, thresholds.blocker_min_effort);
  effort(assess.fallback_item_min_effort, thresholds.fallback_item_min_effort);
  effort(assess.training_scale_min_effort, thresholds.training_scale_min_effort);
  take(assess.training_scale_families, thresholds.training_scale_families);
  take(assess.training_scale_rules, thresholds.training_scale_rules);
  roles(assess.critical_roles, thresholds.critical_roles);
  roles(assess.peripheral_roles, thresholds.peripheral_roles);
  take(assess.memory_decides, thresholds.memory_decides);
  thresholds.role_overrides = role_overrides(workflow, result);
  return thresholds;
}

std::vector<RoleOverride> role_overrides(const WorkflowOptions &workflow, const ScanResult &result) {
  // [roles] globs are relative to the config file and follow .gitignore
  // rules; resolve them here, one exact-path override per scanned file.
  std::vector<RoleOverride> overrides;
  if (workflow.config.roles.empty())
    return overrides;
  const ConfigPaths paths(workflow.config, workflow.root_prefix);
  for (const auto &file : result.files)
    if (const std::string name = paths.role(file.path); !name.empty())
      if (const auto role = role_from_string(name))
        overrides.push_back(RoleOverride{file.path, *role});
  return overrides;
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

} // namespace mpsaudit
