#include "portfolio/portfolio_run.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <sys/stat.h>

#include "core/process.h"
#include "core/temporary_directory.h"
#include "core/text.h"
#include "scan/scan.h"

namespace mpsaudit {
namespace {

namespace fs = std::filesystem;

// A JSON report larger than this is refused rather than read into memory
// (the largest dev-set report is a few tens of MB).
constexpr std::uintmax_t kMaxReportBytes = 1ull << 30;

std::string utc_text(std::time_t when) {
  std::tm parts{};
  gmtime_r(&when, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string file_time_text(const fs::path &path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    return {};
  return utc_text(status.st_mtime);
}

// What a scan's standard error says went wrong: its first line that
// mpsaudit wrote ("mpsaudit: ..."), else its last line.
std::string said_on_stderr(const std::string &text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line)) {
    const std::string trimmed(trim(line));
    if (starts_with(trimmed, "mpsaudit: "))
      return trimmed.substr(10);
    if (!trimmed.empty())
      last = trimmed;
  }
  return last;
}

// A parser callback that keeps of a report only what row_from_report reads:
// the per-file lists are dropped as they are read, and of the findings only
// the operators family's. A report's memory is then about its assessment's,
// however many findings and files it lists.
nlohmann::json::parser_callback_t keep_what_a_row_reads() {
  auto top_key = std::make_shared<std::string>();
  return [top_key](int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
    using event_t = nlohmann::json::parse_event_t;
    if (event == event_t::key && depth == 1) {
      *top_key = parsed.is_string() ? parsed.get<std::string>() : std::string();
      return *top_key != "files" && *top_key != "api_uses" && *top_key != "skipped" &&
             *top_key != "diagnostics";
    }
    if (event == event_t::object_end && depth == 2 && *top_key == "findings") {
      const auto family = parsed.find("family");
      return family != parsed.end() && *family == "operators";
    }
    return true;
  };
}

bool read_report(const fs::path &path, nlohmann::json &report, std::string &error) {
  std::error_code code;
  const std::uintmax_t size = fs::file_size(path, code);
  if (code) {
    error = "cannot read " + path.string() + ": " + code.message();
    return false;
  }
  if (size > kMaxReportBytes) {
    error = path.string() + " is larger than 1 GiB; not read";
    return false;
  }
  std::ifstream file(path, std::ios::binary);
  report = nlohmann::json::parse(file, keep_what_a_row_reads(), false);
  if (report.is_discarded()) {
    error = path.string() + " is not valid JSON";
    return false;
  }
  return true;
}

// What one input becomes before it is run: a tree to scan, a report to
// read, or an error.
struct Planned {
  std::string input;
  bool tree = false;
  std::string error;
  std::string name;     // a tree's folder name
  std::string json_out; // where its scan writes the JSON report
  std::string html_out; // and the HTML one, when reports are kept
};

Planned plan_input(const std::string &input, const std::string &reports_dir, std::set<std::string> &stems) {
  Planned planned;
  planned.input = input;
  std::error_code error;
  const fs::file_status status = fs::status(input, error);
  if (fs::is_regular_file(status))
    return planned; // a JSON report
  if (!fs::is_directory(status)) {
    planned.error = "no such repository or report";
    return planned;
  }
  planned.tree = true;
  const fs::path canonical = canonical_directory(input, error);
  planned.name = error ? input : canonical.filename().string();
  std::string stem = report_file_stem(planned.name);
  for (int suffix = 2; !stems.insert(stem).second; ++suffix)
    stem = report_file_stem(planned.name) + "-" + std::to_string(suffix);
  planned.json_out = (fs::path(reports_dir) / (stem + ".json")).string();
  planned.html_out = (fs::path(reports_dir) / (stem + ".html")).string();
  return planned;
}

PortfolioRow error_row(const Planned &planned, const std::string &error, const char *source) {
  PortfolioRow row;
  row.input = planned.input;
  row.source = source;
  row.name = planned.name.empty() ? fs::path(planned.input).filename().string() : planned.name;
  row.error = error;
  return row;
}

// `row` from the JSON report at `path`; a report that names no repository is
// named `fallback_name`. False, with `row` the error, when the file could not
// be read as JSON: such a row gets nothing more.
bool row_from_file(const Planned &planned, const fs::path &path, const char *source,
                   const std::string &tool_version, const std::string &fallback_name, PortfolioRow &row) {
  nlohmann::json report;
  std::string error;
  if (!read_report(path, report, error)) {
    row = error_row(planned, error, source);
    return false;
  }
  row = row_from_report(report, tool_version);
  row.input = planned.input;
  row.source = source;
  if (row.name.empty())
    row.name = fallback_name;
  return true;
}

PortfolioRow read_report_row(const Planned &planned, const std::string &tool_version) {
  PortfolioRow row;
  if (!row_from_file(planned, planned.input, "report", tool_version, fs::path(planned.input).stem().string(),
                     row))
    return row;
  row.scanned_at = file_time_text(planned.input);
  fs::path html = planned.input;
  html.replace_extension(".html");
  std::error_code code;
  if (fs::is_regular_file(html, code))
    row.html_report = html.string();
  return row;
}

std::string process_failure(const ProcessResult &result, double timeout_seconds) {
  if (result.launch != "started")
    return "could not start mpsaudit scan (" + result.launch +
           (result.launch_error.empty() ? "" : ": " + result.launch_error) + ")";
  if (result.timed_out)
    return "the scan ran past " + std::to_string(static_cast<long>(timeout_seconds)) + " s and was stopped";
  if (!result.exited)
    return "the scan ended by signal " + std::to_string(result.signal);
  const std::string said = said_on_stderr(result.err);
  return "the scan wrote no report (exit " + std::to_string(result.exit_status) + ")" +
         (said.empty() ? "" : ": " + said);
}

PortfolioRow scan_tree_row(const Planned &planned, const PortfolioRequest &request, unsigned jobs_per_scan,
                           bool keep_html) {
  std::error_code error;
  ProcessRequest process;
  process.argv = {request.executable,
                  "scan",
                  ".",
                  "--format",
                  "json",
                  "-o",
                  fs::absolute(planned.json_out, error).string()};
  if (keep_html)
    process.argv.insert(process.argv.end(), {"-o", fs::absolute(planned.html_out, error).string()});
  process.argv.insert(process.argv.end(),
                      {"--progress", "never", "--fail-on", "never", "-j", std::to_string(jobs_per_scan)});
  process.argv.insert(process.argv.end(), request.scan_arguments.begin(), request.scan_arguments.end());
  process.working_directory = fs::absolute(planned.input, error).string();
  process.timeout_seconds = request.timeout_seconds;
  process.max_output_bytes = 1u << 20; // standard error's diagnostics; the report goes to a file
  fs::remove(planned.json_out, error);
  const ProcessResult result = run_process(process);
  if (!fs::is_regular_file(planned.json_out, error) || !result.exited)
    return error_row(planned, process_failure(result, request.timeout_seconds), "tree");
  PortfolioRow row;
  if (!row_from_file(planned, planned.json_out, "tree", request.tool_version, planned.name, row))
    return row;
  row.scanned_at = utc_text(std::time(nullptr));
  if (keep_html && fs::is_regular_file(planned.html_out, error))
    row.html_report = planned.html_out;
  if (result.exit_status == 3 && row.ok()) // a row without a verdict says why already
    row.notes.push_back("some files could not be scanned: " + said_on_stderr(result.err));
  return row;
}

} // namespace

std::string report_file_stem(const std::string &name) {
  std::string stem;
  for (char c : name)
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
  if (stem.empty() || stem.front() == '.')
    stem.insert(stem.begin(), '_');
  return stem;
}

bool expand_portfolio_inputs(const std::vector<std::string> &arguments, std::vector<std::string> &inputs,
                             std::string &error) {
  for (const std::string &argument : arguments) {
    if (argument.size() < 2 || argument.front() != '@') {
      inputs.push_back(argument);
      continue;
    }
    std::ifstream list(argument.substr(1));
    if (!list) {
      error = "cannot read the list " + argument.substr(1);
      return false;
    }
    for (std::string line; std::getline(list, line);) {
      const std::string path(trim(line));
      if (!path.empty() && path.front() != '#')
        inputs.push_back(path);
    }
  }
  return true;
}

std::vector<PortfolioRow> collect_portfolio_rows(const PortfolioRequest &request) {
  TemporaryDirectory scratch("mpsaudit-portfolio-");
  const bool keep = !request.reports_dir.empty();
  const std::string reports_dir = keep ? request.reports_dir : scratch.path();
  std::vector<Planned> plans;
  std::set<std::string> stems;
  for (const std::string &input : request.inputs)
    plans.push_back(plan_input(input, reports_dir, stems));

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned workers = std::max(
      1u, std::min<unsigned>(request.jobs ? request.jobs : cores, static_cast<unsigned>(plans.size())));
  // Each scan gets its share of the cores: several small repositories at
  // once, or one large one with them all.
  const unsigned jobs_per_scan = std::max(1u, cores / workers);
  std::vector<PortfolioRow> rows(plans.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  const auto work = [&] {
    for (std::size_t i = next++; i < plans.size(); i = next++) {
      const Planned &planned = plans[i];
      if (!planned.error.empty())
        rows[i] = error_row(planned, planned.error, "");
      else if (!planned.tree)
        rows[i] = read_report_row(planned, request.tool_version);
      else if (!keep && !scratch.created())
        rows[i] = error_row(planned, "no temporary directory for its report", "tree");
      else
        rows[i] = scan_tree_row(planned, request, jobs_per_scan, keep);
      std::lock_guard<std::mutex> lock(progress_mutex);
      ++done;
      if (request.on_progress)
        request.on_progress(done, plans.size());
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < workers; ++t)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
  return rows;
}

} // namespace mpsaudit
