// `mpsaudit scan`: the main job.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/workflow_options.h"
#include "core/text.h"
#include "report/report.h"
#include "report/report_writers.h"
#include "scan/result_cache.h"
#include "session/session.h"
#include "workflow/git_repository.h"

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

// Whether standard output gets a document a program reads, which a
// progress line on the same terminal must not share.
bool machine_output_on_stdout(const std::vector<std::pair<std::string, std::string>> &outputs) {
  for (const auto &[format, path] : outputs)
    if (path == "-" && find_report_writer(format)->machine_readable)
      return true;
  return false;
}

// A progress line on standard error while the scan runs, when the mode and
// the terminal want one (cli/progress.h); the line is cleared before
// anything else is printed.
std::function<std::shared_ptr<void>(const ScanProgress &)>
progress_display(ProgressMode mode, const std::vector<std::pair<std::string, std::string>> &outputs) {
  if (!progress_wanted(mode, machine_output_on_stdout(outputs)))
    return {};
  return [mode](const ScanProgress &progress) {
    return std::make_shared<ProgressLine>(progress, progress_delay(mode));
  };
}

std::optional<Severity> parse_fail_on(const std::string &text) {
  if (text == "never")
    return std::nullopt;
  return severity_from_string(text);
}

// Writes each requested report; false after saying which file could not be
// written.
bool write_reports(const std::vector<std::pair<std::string, std::string>> &outputs, Session &session,
                   const ReportContext &context, const std::string &color) {
  ScanResult &result = session.result;
  auto phase_started = std::chrono::steady_clock::now();
  for (const auto &[output_format, path] : outputs) {
    std::ofstream file;
    std::ostream *out = &std::cout;
    const bool to_stdout = path == "-";
    if (!to_stdout) {
      file.open(path, std::ios::binary);
      if (!file) {
        usage_error("cannot write " + path);
        return false;
      }
      out = &file;
    }
    WriterOptions options;
    options.color = color == "always" || (color == "auto" && to_stdout && isatty(STDOUT_FILENO));
    options.width = to_stdout ? terminal_columns() : 0;
    options.concise = to_stdout && isatty(STDOUT_FILENO);
    find_report_writer(output_format)->write(*out, result, context, options);
    result.profile.phases.emplace_back("report " + output_format + (to_stdout ? "" : " to " + path),
                                       seconds_since(phase_started));
    phase_started = std::chrono::steady_clock::now();
  }
  return true;
}

// The exit code of a scan whose reports are written.
int scan_exit_code(const Session &session) {
  const ScanResult &result = session.result;
  if (result.has_errors() || (session.nothing_scanned && result.workflow.partial_scan.empty()))
    return kScanErrors;
  const auto threshold = parse_fail_on(session.fail_on);
  // A fail-on from the scanned tree's own config does not let its safety
  // findings pass: they fail as they would by default (--fail-on warning).
  const auto fails = [&](const Finding &finding) {
    if (session.workflow.fail_on_from_tree && finding.rule && finding.rule->safety)
      return finding.severity >= static_cast<int>(Severity::Warning);
    return threshold && finding.severity >= static_cast<int>(*threshold);
  };
  for (const auto &finding : result.findings)
    if (!finding.suppressed && fails(finding))
      return kFindings;
  return kClean;
}

// The roots that are each the top of a git work tree of their own: two or
// more are separate repositories that one scan judges as one tree.
std::vector<std::string> separate_repositories(const std::vector<std::string> &paths) {
  std::vector<std::string> roots;
  std::vector<std::filesystem::path> tops;
  for (const std::string &path : paths) {
    std::error_code error;
    if (!std::filesystem::is_directory(path, error))
      continue;
    const std::optional<GitRepository> repository =
        find_git_repository(std::filesystem::absolute(path, error));
    if (!repository || !repository->prefix.empty() ||
        std::find(tops.begin(), tops.end(), repository->top) != tops.end())
      continue;
    tops.push_back(repository->top);
    roots.push_back(path);
  }
  return roots;
}

// Says, on standard error, that separate repositories were judged as one,
// and what judges each on its own.
void note_separate_repositories(const std::vector<std::string> &paths) {
  const std::vector<std::string> roots = separate_repositories(paths);
  if (roots.size() < 2)
    return;
  std::string list;
  for (const std::string &root : roots)
    list += " " + root;
  std::cerr << "mpsaudit: note: " << roots.size()
            << " of these roots are separate git repositories, judged here as one tree with one verdict; "
               "`mpsaudit portfolio"
            << terminal_safe(list) << "` judges each on its own (docs/portfolio.md)\n";
}

} // namespace

int command_scan(const Invocation &invocation) {
  const auto started = std::chrono::steady_clock::now();
  SessionRequest request;
  request.started = started;
  request.executable = invocation.executable;
  request.tool_version = tool_version();
  ScanOptions &options = request.scan;
  options.paths.clear();
  WorkflowOptions &workflow = request.workflow;             // config, rule selection, baseline, changed files
  std::vector<std::pair<std::string, std::string>> outputs; // format, path ("-" = stdout)
  std::string format = "text", rules_dir, color = "auto";
  std::string progress_text = "auto"; // --progress never|auto|always
  bool profile = false;               // --profile: where the time went, on standard error
  bool full = false;                  // --full: every finding and reason, however large the report
  std::string cache_dir;              // --cache-dir; empty: the default (docs/cache.md)
  bool use_cache = true;              // --no-cache turns the result cache off
  Arguments args(invocation.arguments);
  std::string value;
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
    } else if (args.option("--max-parse-memory", value)) {
      options.max_parse_memory_mib = std::strtoull(value.c_str(), nullptr, 10);
    } else if (args.option("--rules-dir", value)) {
      rules_dir = value;
    } else if (args.option("--env", value)) {
      request.env_paths.push_back(value);
    } else if (args.flag("--probe")) {
      request.run_probe = true;
    } else if (args.option("--probe-target", value)) {
      request.run_probe = true;
      request.probe_target = value;
    } else if (args.option("--verdicts", value)) {
      request.verdicts_path = value;
    } else if (args.option("--color", value)) {
      color = value;
    } else if (args.option("--progress", value)) {
      progress_text = value;
    } else if (args.option("--fail-on", value)) {
      request.fail_on = value;
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
  if (!find_report_writer(format))
    return usage_error("unknown format '" + format + "' (" + report_format_names(", ") + ")");
  if (request.fail_on != "never" && !parse_fail_on(request.fail_on))
    return usage_error("--fail-on takes error, warning, info or never");
  const std::optional<ProgressMode> progress_mode = progress_mode_from_string(progress_text);
  if (!progress_mode)
    return usage_error("--progress takes never, auto or always");
  if (request.run_probe && !request.verdicts_path.empty())
    return usage_error("--probe and --verdicts both give verdicts; use one");
  // An --output's format follows its extension; the rest use --format.
  for (auto &[output_format, path] : outputs) {
    output_format = format_for_extension(path);
    if (output_format.empty())
      output_format = format;
  }
  if (outputs.empty())
    outputs.emplace_back(format, "-");

  if (use_cache)
    options.cache_directory = cache_dir.empty() ? default_cache_directory() : cache_dir;
  request.rules_dir = rules_directory(invocation, rules_dir);
  request.bundled_rules = rules_dir.empty();
  request.goal = workflow.write_baseline_path.empty() ? SessionGoal::Assess : SessionGoal::WriteBaseline;
  request.show_progress = progress_display(*progress_mode, outputs);
  const std::vector<std::string> roots = options.paths; // the request is moved into the session
  Session session;
  const SessionStatus status = run_session(std::move(request), session);
  if (status == SessionStatus::Refused)
    return kUsage;
  if (status == SessionStatus::BaselineWritten)
    return report_baseline_written(session.workflow, session.result);

  const ScanResult &result = session.result;
  ReportContext context{tool_version(), &session.catalog};
  context.full = full;
  context.findings_only = !result.workflow.partial_scan.empty();
  if (session.nothing_scanned)
    context.no_decision_reason = session.no_decision_reason;
  else
    context.assessment = &session.assessment;
  context.environment = session.environment;
  if (!write_reports(outputs, session, context, color))
    return kUsage;
  // The counts and the decision go to standard error too, unless standard
  // output alone is a report for a reader that already shows them.
  const bool reader_sees_summary = outputs.size() == 1 && outputs.front().second == "-" &&
                                   (outputs.front().first == "text" || outputs.front().first == "summary");
  if (!reader_sees_summary) {
    std::cerr << summary_line(result) << "\n";
    if (context.assessment && !context.findings_only)
      std::cerr << terminal_safe(assessment_summary(session.assessment), KeepLayout::TabAndNewline);
  }
  print_workflow_notes(result);
  if (roots.size() > 1)
    note_separate_repositories(roots);
  if (profile)
    print_profile(std::cerr, result.profile, seconds_since(started));
  return scan_exit_code(session);
}

} // namespace mpsaudit::cli
