// `mpsaudit portfolio`: many repositories, each judged on its own, in one
// table (docs/portfolio.md). Parses the arguments, runs the library
// (portfolio/portfolio_run.h) and writes the formats asked for.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "core/text.h"
#include "portfolio/portfolio_run.h"
#include "portfolio/portfolio_writers.h"

namespace mpsaudit::cli {
namespace {

namespace fs = std::filesystem;

// This program's own path, for the scan processes: argv[0] may be a bare
// name found on PATH, or relative to a directory the scans do not run in.
std::string own_executable(const std::string &argv0) {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && !self.empty())
    return self.string();
  if (argv0.find('/') == std::string::npos)
    return argv0;
  return fs::absolute(argv0, error).string();
}

// The scans run in each repository: a relative directory given here would
// name another one there.
std::string absolute_path(const std::string &path) {
  std::error_code error;
  return fs::absolute(path, error).string();
}

bool machine_output_on_stdout(const std::vector<std::pair<std::string, std::string>> &outputs) {
  for (const auto &[format, path] : outputs)
    if (path == "-" && find_portfolio_writer(format)->machine_readable)
      return true;
  return false;
}

bool write_outputs(const Portfolio &portfolio,
                   const std::vector<std::pair<std::string, std::string>> &outputs) {
  for (const auto &[format, path] : outputs) {
    PortfolioWriterOptions options;
    if (path == "-") {
      options.width = format == "text" ? terminal_columns() : 0;
      find_portfolio_writer(format)->write(std::cout, portfolio, options);
      continue;
    }
    std::ofstream file(path, std::ios::binary);
    if (!file) {
      usage_error("cannot write " + path);
      return false;
    }
    options.written_to = fs::path(path).parent_path().string();
    find_portfolio_writer(format)->write(file, portfolio, options);
  }
  return true;
}

bool read_baseline(const std::string &path, nlohmann::json &baseline) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  baseline = nlohmann::json::parse(file, nullptr, false);
  return !baseline.is_discarded();
}

} // namespace

int command_portfolio(const Invocation &invocation) {
  PortfolioRequest request;
  request.executable = own_executable(invocation.executable);
  request.tool_version = tool_version();
  std::vector<std::string> paths;
  std::vector<std::pair<std::string, std::string>> outputs; // format, path ("-" = stdout)
  std::string format = "text", baseline_path, progress_text = "auto", value;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (!args.is_option()) {
      paths.push_back(args.current());
    } else if (args.option("--format", value) || args.option("-f", value)) {
      format = value;
    } else if (args.option("--output", value) || args.option("-o", value)) {
      outputs.emplace_back("", value);
    } else if (args.option("--jobs", value) || args.option("-j", value)) {
      request.jobs = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (args.option("--reports-dir", value)) {
      request.reports_dir = value;
    } else if (args.option("--baseline", value)) {
      baseline_path = value;
    } else if (args.option("--timeout", value)) {
      request.timeout_seconds = std::strtod(value.c_str(), nullptr);
    } else if (args.option("--progress", value)) {
      progress_text = value;
    } else if (args.flag("--no-git") || args.flag("--no-cache")) {
      request.scan_arguments.push_back(args.current());
    } else if (args.option("--cache-dir", value)) {
      request.scan_arguments.insert(request.scan_arguments.end(), {"--cache-dir", absolute_path(value)});
    } else if (args.option("--rules-dir", value)) {
      request.scan_arguments.insert(request.scan_arguments.end(), {"--rules-dir", absolute_path(value)});
    } else {
      return usage_error("unknown option for portfolio: " + args.current());
    }
    if (!args.error().empty())
      return usage_error(args.error());
  }
  std::string error;
  if (!expand_portfolio_inputs(paths, request.inputs, error))
    return usage_error(error);
  if (request.inputs.empty())
    return usage_error("portfolio needs at least one repository or JSON report (or @FILE)");
  if (!find_portfolio_writer(format))
    return usage_error("unknown format '" + format + "' (" + portfolio_format_names(", ") + ")");
  if (request.timeout_seconds <= 0)
    return usage_error("--timeout takes a number of seconds above 0");
  const std::optional<ProgressMode> progress_mode = progress_mode_from_string(progress_text);
  if (!progress_mode)
    return usage_error("--progress takes never, auto or always");
  for (auto &[output_format, path] : outputs) {
    output_format = portfolio_format_for_extension(path);
    if (output_format.empty())
      output_format = format;
  }
  if (outputs.empty())
    outputs.emplace_back(format, "-");
  nlohmann::json baseline;
  if (!baseline_path.empty() && !read_baseline(baseline_path, baseline))
    return usage_error("cannot read the baseline portfolio " + baseline_path + " as JSON");
  if (!request.reports_dir.empty()) {
    std::error_code created;
    fs::create_directories(request.reports_dir, created);
    if (!fs::is_directory(request.reports_dir, created))
      return usage_error("cannot create --reports-dir " + request.reports_dir);
  }

  const bool show_progress = progress_wanted(*progress_mode, machine_output_on_stdout(outputs));
  if (show_progress)
    request.on_progress = [](std::size_t done, std::size_t total) {
      std::cerr << "\r" << done << "/" << total << " repositories" << std::flush;
    };
  std::vector<PortfolioRow> rows = collect_portfolio_rows(request);
  if (show_progress)
    std::cerr << "\r\033[K" << std::flush;
  Portfolio portfolio = summarize_portfolio(std::move(rows), tool_version());
  if (!baseline_path.empty() && !compare_with_baseline(portfolio, baseline, baseline_path, error))
    return usage_error(error);
  if (!write_outputs(portfolio, outputs))
    return kUsage;
  int exit_code = kClean;
  for (const PortfolioRow &row : portfolio.rows)
    if (!row.ok()) {
      std::cerr << "mpsaudit: " << terminal_safe(row.input) << ": " << terminal_safe(row.error) << "\n";
      exit_code = kScanErrors;
    }
  return exit_code;
}

} // namespace mpsaudit::cli
