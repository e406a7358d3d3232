// `mpsaudit scan`: the main job.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "acceptance/disagreements.h"
#include "acceptance/env_record.h"
#include "assess/assessment_inputs.h"
#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/probe_runner.h"
#include "cli/progress.h"
#include "cli/workflow_options.h"
#include "core/temporary_directory.h"
#include "core/text.h"
#include "report/github_report.h"
#include "report/report.h"
#include "scan/result_cache.h"
#include "scan/scan.h"

namespace mpsaudit::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// How much of the Python code the prefilter spared the full extraction.
void print_prefilter(std::ostream &out, const ScanProfile::Prefilter &prefilter) {
  if (prefilter.words == 0) {
    out << "  python prefilter: off (" << prefilter.off_because << ")\n";
    return;
  }
  char line[200];
  const auto share = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  std::snprintf(line, sizeof line,
                "  python prefilter: %zu words; parsed only %zu of %zu files (%.1f%%), %.1f%% of the bytes\n",
                prefilter.words, prefilter.skipped_files, prefilter.files,
                share(static_cast<double>(prefilter.skipped_files), static_cast<double>(prefilter.files)),
                share(static_cast<double>(prefilter.skipped_bytes), static_cast<double>(prefilter.bytes)));
  out << line;
}

// `scan --profile`: wall time per phase, and per file kind the time its
// front end took (summed over threads, so it can exceed the wall time of
// the phase that runs them) — to find where a slow scan spends its time.
void print_profile(std::ostream &out, const ScanProfile &profile, double total_seconds) {
  char line[160];
  out << "mpsaudit profile (seconds)\n";
  for (const auto &[phase, seconds] : profile.phases) {
    std::snprintf(line, sizeof line, "  %-44s %9.3f\n", phase.c_str(), seconds);
    out << line;
    if (phase == "read, extract facts, first rules")
      for (const auto &[kind, front_end] : profile.front_ends) {
        std::snprintf(line, sizeof line, "    front end %-14s %7zu files %9.3f (all threads)\n", kind.c_str(),
                      front_end.files, front_end.seconds);
        out << line;
      }
  }
  if (profile.cache_hits + profile.cache_misses > 0) {
    std::snprintf(line, sizeof line, "  result cache: %zu files from the cache, %zu parsed\n",
                  profile.cache_hits, profile.cache_misses);
    out << line;
  }
  print_prefilter(out, profile.python_prefilter);
  std::snprintf(line, sizeof line, "  %-44s %9.3f\n", "total", total_seconds);
  out << line;
}

// Writes this scan's JSON report to a temporary directory, runs
// mpsaudit-probe on it and returns the path of the verdicts it wrote there
// ("" on failure, reported). `directory` holds both until the caller's scope
// ends, on every way out of it.
std::string probe_this_scan(const Invocation &invocation, const ScanResult &result,
                            const RuleCatalog &catalog, const std::string &target,
                            const std::string &torch_version, std::optional<TemporaryDirectory> &directory) {
  const std::string binary = find_probe_binary(invocation);
  if (binary.empty()) {
    std::cerr << "mpsaudit: --probe needs mpsaudit-probe, which is built only where LibTorch is found "
                 "(docs/runtime-probe.md)\n";
    return {};
  }
  directory.emplace("mpsaudit-probe-");
  if (!directory->created()) {
    std::cerr << "mpsaudit: cannot create a temporary directory for the probe\n";
    return {};
  }
  const std::string report_path = directory->path() + "/report.json";
  const std::string verdicts = directory->path() + "/verdicts.json";
  ReportContext context{tool_version(), &catalog};
  {
    std::ofstream report(report_path);
    write_json_report(report, result, context);
  }
  std::vector<std::string> arguments{"--target", target, "-o", verdicts};
  if (!torch_version.empty())
    arguments.insert(arguments.end(), {"--torch-version", torch_version});
  arguments.push_back(report_path);
  const int status = run_program(binary, arguments);
  if (status != 0 || !std::filesystem::exists(verdicts)) {
    std::cerr << "mpsaudit: mpsaudit-probe failed (exit " << status << ")\n";
    return {};
  }
  return verdicts;
}

// The `environment` section of the report: the interpreters recorded by
// `mpsaudit env` and what they (and the probe, when it ran) disagree on.
// Null after printing the problem when a record cannot be read.
nlohmann::json environment_section(const std::vector<std::string> &env_paths,
                                   const std::string &verdicts_path) {
  std::vector<acceptance::InterpreterRecord> interpreters;
  for (const auto &path : env_paths) {
    std::ifstream in(path);
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    std::string error;
    const auto record = json.is_discarded() ? std::nullopt : acceptance::env_record_from_json(json, error);
    if (!record) {
      std::cerr << "mpsaudit: " << terminal_safe(path) << ": not an environment record"
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
    std::cerr << "mpsaudit: environment " << terminal_safe(disagreement.severity) << ": "
              << terminal_safe(disagreement.message) << "\n";
  }
  return section;
}

// The first named path that does not exist ("-" is standard input); a
// missing path is a usage error, as in ripgrep, not an input problem.
std::optional<std::string> first_missing_path(const std::vector<std::string> &paths) {
  for (const auto &path : paths) {
    std::error_code error;
    if (path != "-" && !std::filesystem::exists(std::filesystem::symlink_status(path, error)))
      return path;
  }
  return std::nullopt;
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

// The scan the assessment reads: every finding, the baseline's known ones
// too, so that a baseline filters what is reported as new but never hides
// the port's size or blockers.
ScanResult with_baseline_findings(const ScanResult &result) {
  ScanResult all = result;
  all.findings.insert(all.findings.end(), result.baseline_findings.begin(), result.baseline_findings.end());
  return all;
}

// The effort model as reports name it: the bundled model by its place in
// the source tree and the install (rules/effort.toml), never by the
// absolute path of the machine that built the binary.
std::string effort_model_label(const std::string &model_path, bool bundled) {
  return bundled ? "rules/effort.toml" : model_path;
}

// Whether standard output gets a document a program reads, which a
// progress line on the same terminal must not share.
bool machine_output_on_stdout(const std::vector<std::pair<std::string, std::string>> &outputs) {
  for (const auto &[format, path] : outputs)
    if (path == "-" && (format == "json" || format == "sarif" || format == "github"))
      return true;
  return false;
}

// The scan, with a progress line on standard error while it runs when the
// mode and the terminal want one (cli/progress.h); the line is cleared
// before anything else is printed.
ScanResult run_scan_with_progress(ScanOptions &options, const RuleCatalog &catalog, ProgressMode mode,
                                  const std::vector<std::pair<std::string, std::string>> &outputs) {
  if (!progress_wanted(mode, machine_output_on_stdout(outputs)))
    return run_scan(options, catalog);
  ScanProgress progress;
  options.progress = &progress;
  ScanResult result;
  {
    const ProgressLine line(progress, progress_delay(mode));
    result = run_scan(options, catalog);
  }
  options.progress = nullptr;
  return result;
}

std::optional<Severity> parse_fail_on(const std::string &text) {
  if (text == "never")
    return std::nullopt;
  return severity_from_string(text);
}

} // namespace

int command_scan(const Invocation &invocation) {
  ScanOptions options;
  options.paths.clear();
  options.retain_fact = assessment_retention;
  options.retain_fact_python_triggers = assessment_python_triggers();
  std::vector<std::pair<std::string, std::string>> outputs; // format, path ("-" = stdout)
  std::string format = "text", rules_dir, color = "auto", fail_on = "warning";
  std::string progress_text = "auto"; // --progress never|auto|always
  std::string verdicts_path;          // --verdicts: mpsaudit-probe's JSON, merged into the assessment
  bool run_probe = false;             // --probe: run mpsaudit-probe on this scan first
  std::vector<std::string> env_paths; // --env: records written by `mpsaudit env`
  std::optional<TemporaryDirectory> probe_directory; // --probe's report and verdicts, removed on return
  std::string probe_target = "auto";
  bool profile = false;  // --profile: where the time went, on standard error
  bool full = false;     // --full: every finding and reason, however large the report
  std::string cache_dir; // --cache-dir; empty: the default (docs/cache.md)
  bool use_cache = true; // --no-cache turns the result cache off
  const auto started = std::chrono::steady_clock::now();
  Arguments args(invocation.arguments);
  std::string value;
  WorkflowOptions workflow; // config, rule selection, baseline, changed files
  std::string workflow_error;
  while (args.next()) {
    if (!args.is_option() || args.current() == "-") {
      options.paths.push_back(args.current());
    } else if (args.option("--format", value) || args.option("-f", value)) {
      format = value;
    } else if (args.option("--output", value) || args.option("-o", value)) {
      outputs.emplace_back("", value);
    } else if (args.option("--jobs", value) || args.option("-j", value)) {
      options.jobs = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (args.option("--max-file-size", value)) {
      options.max_file_bytes = std::strtoull(value.c_str(), nullptr, 10);
    } else if (args.option("--max-parse-time", value)) {
      options.max_parse_ms = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (args.option("--rules-dir", value)) {
      rules_dir = value;
    } else if (args.option("--env", value)) {
      env_paths.push_back(value);
    } else if (args.flag("--probe")) {
      run_probe = true;
    } else if (args.option("--probe-target", value)) {
      run_probe = true;
      probe_target = value;
    } else if (args.option("--verdicts", value)) {
      verdicts_path = value;
    } else if (args.option("--color", value)) {
      color = value;
    } else if (args.option("--progress", value)) {
      progress_text = value;
    } else if (args.option("--fail-on", value)) {
      fail_on = value;
      workflow.fail_on_given = true;
    } else if (parse_workflow_option(args, workflow, workflow_error)) {
      if (!workflow_error.empty())
        return usage_error(workflow_error);
    } else if (args.option("-p", value) || args.option("--compile-commands", value)) {
      options.compile_commands_dir = value;
    } else if (args.flag("--no-git")) {
      options.use_git = false;
    } else if (args.flag("--profile")) {
      profile = true;
    } else if (args.flag("--full")) {
      full = true;
    } else if (args.option("--cache-dir", value)) {
      cache_dir = value;
    } else if (args.flag("--no-cache")) {
      use_cache = false;
    } else {
      return usage_error("unknown option for scan: " + args.current());
    }
    if (!args.error().empty())
      return usage_error(args.error());
  }
  if (options.paths.empty())
    options.paths.push_back(".");
  if (const auto missing = first_missing_path(options.paths))
    return usage_error("no such file or directory: " + *missing);
  if (format != "text" && format != "json" && format != "github" && format != "md" && format != "html" &&
      format != "sarif")
    return usage_error("unknown format '" + format + "' (text, json, md, html, sarif, github)");
  if (fail_on != "never" && !parse_fail_on(fail_on))
    return usage_error("--fail-on takes error, warning, info or never");
  const std::optional<ProgressMode> progress_mode = progress_mode_from_string(progress_text);
  if (!progress_mode)
    return usage_error("--progress takes never, auto or always");
  // An --output's format follows its extension; the rest use --format.
  for (auto &[output_format, path] : outputs) {
    output_format = format_for_extension(path);
    if (output_format.empty())
      output_format = format;
  }
  if (outputs.empty())
    outputs.emplace_back(format, "-");

  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  if (!prepare_workflow(invocation, workflow, options, catalog, fail_on))
    return kUsage;
  if (use_cache)
    options.cache_directory = cache_dir.empty() ? default_cache_directory() : cache_dir;
  const double setup_seconds = seconds_since(started);
  ScanResult result = run_scan_with_progress(options, catalog, *progress_mode, outputs);
  if (!result.cache_note.empty())
    std::cerr << terminal_safe(result.cache_note) << "\n";
  result.profile.phases.insert(result.profile.phases.begin(), {"load rules and config", setup_seconds});
  auto phase_started = std::chrono::steady_clock::now();
  auto end_phase = [&](std::string name) {
    result.profile.phases.emplace_back(std::move(name), seconds_since(phase_started));
    phase_started = std::chrono::steady_clock::now();
  };
  if (!finish_workflow(workflow, result, catalog))
    return kUsage;
  if (!workflow.write_baseline_path.empty())
    return report_baseline_written(workflow, result);
  // A scan that read nothing has nothing to decide: no decision is better
  // than "ADAPT, 0 h". A partial scan with no changed file is normal.
  const bool nothing_scanned = result.scanned_file_count() == 0;
  if (nothing_scanned)
    std::cerr << "mpsaudit: " << terminal_safe(nothing_to_scan_reason(result)) << "\n";
  // The assessment: effort model (rules/effort.toml or the config's), the
  // config's decision thresholds, and the probe's verdicts when given.
  AssessmentInput assessment_input;
  const ScanResult assessed = with_baseline_findings(result);
  assessment_input.scan = result.baseline_findings.empty() ? &result : &assessed;
  assessment_input.thresholds = decision_thresholds(workflow, result);
  assessment_input.fix_target_torch = workflow.config.target_torch.value; // as `mpsaudit fix` reads it
  std::vector<Diagnostic> assess_problems;
  std::string effort_model = effort_model_path(workflow);
  const bool bundled_model = effort_model.empty() && rules_dir.empty();
  if (effort_model.empty())
    effort_model = rules_directory(invocation, rules_dir) + "/effort.toml";
  assessment_input.model = load_effort_model(effort_model, assess_problems);
  assessment_input.model.origin = effort_model_label(effort_model, bundled_model);
  if (run_probe) {
    if (!verdicts_path.empty())
      return usage_error("--probe and --verdicts both give verdicts; use one");
    verdicts_path = probe_this_scan(invocation, result, catalog, probe_target, workflow.target_torch_table,
                                    probe_directory);
    if (verdicts_path.empty())
      return kUsage;
  }
  if (!verdicts_path.empty())
    assessment_input.probe = load_probe_verdicts(verdicts_path, assess_problems);
  for (const auto &problem : assess_problems)
    std::cerr << "mpsaudit: " << terminal_safe(problem.path)
              << (problem.line ? ":" + std::to_string(problem.line) : "") << ": "
              << terminal_safe(problem.message) << "\n";
  if (!assess_problems.empty())
    return kUsage;
  end_phase("baseline, config, effort model, probe");
  Assessment assessment = assess(assessment_input);
  demote_errors_off_entry_paths(result.findings, assessment);
  label_partial_scan(assessment, result); // --changed-since, --staged, named files
  ReportContext context{tool_version(), &catalog};
  context.full = full;
  if (nothing_scanned)
    context.no_decision_reason = nothing_to_scan_reason(result);
  else
    context.assessment = &assessment;
  if (!env_paths.empty()) {
    context.environment = environment_section(env_paths, verdicts_path);
    if (context.environment.is_null())
      return kUsage;
  }
  end_phase("assess");

  for (const auto &[output_format, path] : outputs) {
    std::ofstream file;
    std::ostream *out = &std::cout;
    const bool to_stdout = path == "-";
    if (!to_stdout) {
      file.open(path, std::ios::binary);
      if (!file)
        return usage_error("cannot write " + path);
      out = &file;
    }
    if (output_format == "github") {
      write_github_report(*out, result, context, repository_prefix(result.root_directory));
    } else if (output_format == "json") {
      write_json_report(*out, result, context);
    } else if (output_format == "sarif") {
      write_sarif_report(*out, result, context);
    } else if (output_format == "md") {
      write_markdown_report(*out, result, context);
    } else if (output_format == "html") {
      write_html_report(*out, result, context);
    } else {
      TextOptions text_options;
      text_options.color = color == "always" || (color == "auto" && to_stdout && isatty(STDOUT_FILENO));
      write_text_report(*out, result, context, text_options);
    }
    end_phase("report " + output_format + (to_stdout ? "" : " to " + path));
  }
  if (!(outputs.size() == 1 && outputs.front().second == "-" && outputs.front().first == "text")) {
    std::cerr << summary_line(result) << "\n";
    if (context.assessment)
      std::cerr << terminal_safe(assessment_summary(assessment), KeepLayout::TabAndNewline);
  }
  print_workflow_notes(result);
  if (profile)
    print_profile(std::cerr, result.profile, seconds_since(started));

  if (result.has_errors() || (nothing_scanned && result.workflow.partial_scan.empty()))
    return kScanErrors;
  const auto threshold = parse_fail_on(fail_on);
  if (threshold) {
    for (const auto &finding : result.findings)
      if (!finding.suppressed && finding.severity >= static_cast<int>(*threshold))
        return kFindings;
  }
  return kClean;
}

} // namespace mpsaudit::cli
