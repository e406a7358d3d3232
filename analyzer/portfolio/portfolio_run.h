// Collecting a portfolio's rows: each repository root scanned by its own
// `mpsaudit scan` process, each JSON report read. A process per repository
// keeps one repository's crash, hang or memory from another's row, and its
// judgement exactly that of `scan` run alone in the repository; each scan
// uses the result cache, so a re-run costs about the repositories that
// changed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "portfolio/portfolio.h"

namespace mpsaudit {

struct PortfolioRequest {
  std::vector<std::string> inputs; // repository roots and JSON reports, @FILE lists expanded
  std::string executable;          // the mpsaudit that runs each `scan`
  std::string tool_version;
  unsigned jobs = 0;                       // repositories scanned at once; 0: one per core
  std::vector<std::string> scan_arguments; // added to every scan (--no-git, --cache-dir DIR, ...)
  // Where each scanned repository's JSON and HTML reports are kept
  // (<name>.json, <name>.html); empty: a temporary directory, removed after.
  std::string reports_dir;
  double timeout_seconds = 3600; // per repository
  // Called after each row, from the thread that made it, one call at a time.
  std::function<void(std::size_t done, std::size_t total)> on_progress;
};

// One row per input, in input order. Never throws: an input that cannot be
// scanned or read is a row with its error.
std::vector<PortfolioRow> collect_portfolio_rows(const PortfolioRequest &request);

// The inputs with every `@FILE` replaced by the paths it lists, one a line
// (blank lines and lines starting with '#' skipped). False, with `error`,
// when a list cannot be read.
bool expand_portfolio_inputs(const std::vector<std::string> &arguments, std::vector<std::string> &inputs,
                             std::string &error);

// A file name for a repository's reports: its name with anything but
// letters, digits, '.', '-' and '_' as '_', never starting with '.'.
std::string report_file_stem(const std::string &name);

} // namespace mpsaudit
