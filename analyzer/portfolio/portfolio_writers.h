// The portfolio's formats in one table: `portfolio --format NAME`,
// `-o FILE.EXT` and the help text read it, as report_writers.h does for scan.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "portfolio/portfolio.h"

namespace mpsaudit {

struct PortfolioWriterOptions {
  std::size_t width = 0; // the text table's terminal columns; 0: no limit (a pipe, a file)
  // The directory the document is written to: links to each repository's
  // own HTML report are relative to it. Empty: the current directory.
  std::string written_to;
};

struct PortfolioWriter {
  const char *name;                     // --format NAME
  std::vector<const char *> extensions; // -o FILE.EXT picks this format
  bool machine_readable;                // read by a program: no progress line beside it on a terminal
  void (*write)(std::ostream &out, const Portfolio &portfolio, const PortfolioWriterOptions &options);
};

// Every format, the default first.
const std::vector<PortfolioWriter> &portfolio_writers();
const PortfolioWriter *find_portfolio_writer(std::string_view name);
// The format a path's extension names ("" when none does).
std::string portfolio_format_for_extension(const std::string &path);
std::string portfolio_format_names(std::string_view separator);

void write_portfolio_text(std::ostream &out, const Portfolio &portfolio,
                          const PortfolioWriterOptions &options);
void write_portfolio_markdown(std::ostream &out, const Portfolio &portfolio,
                              const PortfolioWriterOptions &options);
void write_portfolio_csv(std::ostream &out, const Portfolio &portfolio,
                         const PortfolioWriterOptions &options);
void write_portfolio_json(std::ostream &out, const Portfolio &portfolio,
                          const PortfolioWriterOptions &options);
void write_portfolio_html(std::ostream &out, const Portfolio &portfolio,
                          const PortfolioWriterOptions &options);

// What changed since the baseline, a line each ("name: verdict ADAPT ->
// DUAL", "name: no longer in the portfolio", or "nothing changed"); none
// without a baseline.
std::vector<std::string> portfolio_change_lines(const Portfolio &portfolio);

// "3.0–7.2 person-days" (8 hours a day).
std::string person_days_text(const HourRange &hours);

// Which torch release gives the most repositories a kernel for every
// missing operator, and how many verdicts it changes, as one sentence.
std::string portfolio_release_sentence(const Portfolio &portfolio);

// A link from the document written to `written_to` (a directory; empty:
// the current one) to a repository's own report: a relative path, with
// anything a Markdown or HTML link could read as its end, or as markup,
// percent-encoded.
std::string report_link(const std::string &report, const std::string &written_to);

// A CSV field (RFC 4180), with a leading quote before what a spreadsheet
// would run as a formula (=, +, -, @, tab, carriage return): names and
// reasons come from untrusted trees.
std::string csv_field(std::string_view text);

} // namespace mpsaudit
