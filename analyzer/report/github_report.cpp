#include "report/github_report.h"

#include <algorithm>

#include "assess/effort.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

const char *command_for(int severity) {
  switch (static_cast<Severity>(severity)) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "notice";
  }
  return "warning";
}

// Percent-encodes what the workflow-command syntax reserves. CR and LF are
// encoded as GitHub says; every other control character, and bidi overrides,
// become visible escapes (core/text.h): the annotations are also printed in
// the job's log.
std::string escape(std::string_view text, bool property) {
  std::string shown;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t line_break = std::min(text.find_first_of("\r\n", start), text.size());
    shown += terminal_safe(text.substr(start, line_break - start));
    if (line_break < text.size())
      shown += text[line_break];
    start = line_break + 1;
  }
  std::string out;
  out.reserve(shown.size());
  for (char c : shown) {
    switch (c) {
    case '%':
      out += "%25";
      break;
    case '\r':
      out += "%0D";
      break;
    case '\n':
      out += "%0A";
      break;
    case ':':
      out += property ? "%3A" : ":";
      break;
    case ',':
      out += property ? "%2C" : ",";
      break;
    default:
      out.push_back(c);
    }
  }
  return out;
}

} // namespace

std::string github_escape_data(std::string_view text) {
  return escape(text, false);
}
std::string github_escape_property(std::string_view text) {
  return escape(text, true);
}

void write_github_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                         const std::optional<std::string> &path_prefix) {
  std::string prefix = path_prefix.value_or("");
  if (!prefix.empty() && prefix.back() != '/')
    prefix.push_back('/');
  const auto file_of = [&](const std::string &path) {
    return path_prefix ? prefix + path : path_for_display(result, path);
  };
  for (const Finding &finding : result.findings) {
    if (finding.suppressed)
      continue;
    out << "::" << command_for(finding.severity) << " file=" << github_escape_property(file_of(finding.path));
    if (finding.span.line > 0) {
      out << ",line=" << finding.span.line;
      if (finding.span.column > 0)
        out << ",col=" << finding.span.column;
      if (finding.span.end_line >= finding.span.line && finding.span.end_line > 0) {
        out << ",endLine=" << finding.span.end_line;
        if (finding.span.end_column > 0 && finding.span.end_line == finding.span.line)
          out << ",endColumn=" << finding.span.end_column;
      }
    }
    std::string title = finding.rule_id;
    if (finding.rule)
      title += " " + finding.rule->name;
    out << ",title=" << github_escape_property(title) << "::";
    std::string message = finding.message;
    if (finding.cell >= 0)
      message = "cell " + std::to_string(finding.cell + 1) + ", line " + std::to_string(finding.cell_line) +
                ": " + message;
    if (finding.guard != Guard::None)
      message += " [guarded: " + std::string(to_string(finding.guard)) + "]";
    if (finding.rule && !finding.rule->replacement.empty())
      message += "\nFix: " + finding.rule->replacement;
    out << github_escape_data(message) << "\n";
  }
  std::string summary = summary_line(result);
  if (!result.workflow.partial_scan.empty())
    summary += " (partial scan: " + result.workflow.partial_scan + ")";
  if (context.assessment && !context.findings_only) {
    const Assessment &assessment = *context.assessment;
    summary += ". Decision: " + std::string(to_string(assessment.decision.outcome)) + ", " +
               format_hours(assessment.recommended.hours) + " to " + assessment.recommended.goal;
  }
  if (const std::string config = config_line(result, context.catalog); !config.empty())
    summary += ". " + config;
  out << "::notice title=mpsaudit::" << github_escape_data(summary) << "\n";
}

} // namespace mpsaudit
