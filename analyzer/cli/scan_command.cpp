// `mpsaudit scan`: the main job.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/workflow_options.h"
#include "report/github_report.h"
#include "report/report.h"
#include "scan/scan.h"

namespace mpsaudit::cli {
namespace {

std::optional<Severity> parse_fail_on(const std::string &text) {
  if (text == "never")
    return std::nullopt;
  return severity_from_string(text);
}

} // namespace

int command_scan(const Invocation &invocation) {
  ScanOptions options;
  options.paths.clear();
  std::vector<std::pair<std::string, std::string>> outputs; // format, path ("-" = stdout)
  std::string format = "text", rules_dir, color = "auto", fail_on = "warning";
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
    } else if (args.option("--rules-dir", value)) {
      rules_dir = value;
    } else if (args.option("--color", value)) {
      color = value;
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
    } else {
      return usage_error("unknown option for scan: " + args.current());
    }
    if (!args.error().empty())
      return usage_error(args.error());
  }
  if (options.paths.empty())
    options.paths.push_back(".");
  if (format != "text" && format != "json" && format != "github")
    return usage_error("unknown format '" + format + "' (text, json, github)");
  if (fail_on != "never" && !parse_fail_on(fail_on))
    return usage_error("--fail-on takes error, warning, info or never");
  // An --output's format follows its extension; the rest use --format.
  for (auto &[output_format, path] : outputs) {
    if (path.size() > 5 && path.substr(path.size() - 5) == ".json")
      output_format = "json";
    else if (path.size() > 4 && path.substr(path.size() - 4) == ".txt")
      output_format = "text";
    else
      output_format = format;
  }
  if (outputs.empty())
    outputs.emplace_back(format, "-");

  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  if (!prepare_workflow(invocation, workflow, options, catalog, fail_on))
    return kUsage;
  ScanResult result = run_scan(options, catalog);
  if (!finish_workflow(workflow, result, catalog))
    return kUsage;
  if (!workflow.write_baseline_path.empty())
    return report_baseline_written(workflow, result);
  const ReportContext context{tool_version(), &catalog};

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
      write_github_report(*out, result, context, repository_prefix(result.root));
    } else if (output_format == "json") {
      *out << report_to_json(result, context).dump(2) << "\n";
    } else {
      TextOptions text_options;
      text_options.color = color == "always" || (color == "auto" && to_stdout && isatty(STDOUT_FILENO));
      write_text_report(*out, result, context, text_options);
    }
  }
  if (!(outputs.size() == 1 && outputs.front().second == "-" && outputs.front().first == "text"))
    std::cerr << summary_line(result) << "\n";
  print_workflow_notes(result);

  if (result.has_errors())
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
