// The options of `scan` and `portfolio`, described once: `mpsaudit help` prints them and
// `mpsaudit help --markdown` prints the table of docs/cli.md from the same
// rows (tests/e2e/cli_doc_current.sh checks that the doc is current and that
// `scan` accepts every option listed).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mpsaudit::cli {

struct OptionHelp {
  std::string flags;   // as typed: "-o, --output FILE"
  std::string summary; // `mpsaudit help`; '\n' starts a continuation line
  std::string details; // docs/cli.md (Markdown); "" = the summary
};

// In the order help and the doc list them.
std::vector<OptionHelp> scan_options_help();
// `mpsaudit portfolio`'s options (cli/portfolio_command.cpp).
std::vector<OptionHelp> portfolio_options_help();

// `mpsaudit help`'s option list: two-space indent, flags in a column.
void write_options_text(std::ostream &out, const std::vector<OptionHelp> &options);
// docs/cli.md's option table of `command` (scan, portfolio), between its
// generated-block markers.
void write_options_markdown(std::ostream &out, const std::vector<OptionHelp> &options,
                            const std::string &command);

} // namespace mpsaudit::cli
