// The report formats in one table: `--format NAME`, `-o FILE.EXT` and the
// help text all read it. Adding a format is one row in report_writers.cpp
// and one file with its writer.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace mpsaudit {

// What a writer may need beyond the report model.
struct WriterOptions {
  bool color = false;    // the text report on a terminal
  std::size_t width = 0; // the terminal's columns for the text report; 0: not a terminal
  bool concise = false;  // the text report goes to a terminal (TextOptions::concise)
};

struct ReportWriter {
  const char *name;                     // --format NAME
  std::vector<const char *> extensions; // -o FILE.EXT picks this format (lower case, without the dot)
  // Read by a program (a progress line must not share standard output with it).
  bool machine_readable;
  void (*write)(std::ostream &out, const ScanResult &result, const ReportContext &context,
                const WriterOptions &options);
};

// Every format, in the order help lists them; the first is the default.
const std::vector<ReportWriter> &report_writers();
// The writer called `name`, or null.
const ReportWriter *find_report_writer(std::string_view name);
// The format a path's extension names ("" when none does).
std::string format_for_extension(const std::string &path);
// The format names joined by `separator`: "text|json|md|...".
std::string report_format_names(std::string_view separator);
// The extensions that pick a format, one per format: ".txt .json .md ...".
std::string report_extension_list();

} // namespace mpsaudit
