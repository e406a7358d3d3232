#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "core/text.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

struct Palette {
  bool on = false;
  std::string paint(std::string_view text, const char *code) const {
    if (!on)
      return std::string(text);
    return std::string("\033[") + code + "m" + std::string(text) + "\033[0m";
  }
};

const char *severity_colour(int severity) {
  switch (static_cast<Severity>(severity)) {
  case Severity::Error:
    return "1;31";
  case Severity::Warning:
    return "1;33";
  case Severity::Info:
    return "1;36";
  }
  return "0";
}

// The code line as shown: control characters and bidi overrides as visible
// escapes (core/text.h), tabs kept.
std::string shown_snippet(std::string_view snippet) {
  return terminal_safe(snippet, KeepLayout::Tab);
}

// A caret line under the finding's columns on its first line, as the snippet
// is shown (an escape such as `\x1b` is four columns wide).
std::string caret_line(const Finding &finding) {
  const std::size_t begin = finding.span.column > 0 ? finding.span.column - 1 : 0;
  std::size_t end =
      finding.span.end_line == finding.span.line && finding.span.end_column > finding.span.column
          ? finding.span.end_column - 1
          : finding.snippet.size();
  end = std::max(end, begin + 1);
  const std::string_view snippet = finding.snippet;
  const std::string before = shown_snippet(snippet.substr(0, std::min(begin, snippet.size())));
  const std::size_t marked =
      shown_snippet(snippet.substr(std::min(begin, snippet.size()), end - begin)).size();
  std::string line;
  // Keep tabs so the caret lines up under tab-indented code.
  for (const char c : before)
    line.push_back(c == '\t' ? '\t' : ' ');
  line.append(begin > snippet.size() ? begin - snippet.size() : 0, ' ');
  line.append(std::min<std::size_t>(std::max(marked, end - begin), 200), '^');
  return line;
}

} // namespace

std::string summary_line(const ScanResult &result) {
  std::map<int, int> counts;
  int suppressed = 0;
  for (const auto &finding : result.findings) {
    if (finding.suppressed)
      ++suppressed;
    else
      ++counts[finding.severity];
  }
  const int total = counts[0] + counts[1] + counts[2];
  std::string line = std::to_string(total) + (total == 1 ? " finding" : " findings") + " (" +
                     std::to_string(counts[static_cast<int>(Severity::Error)]) + " error, " +
                     std::to_string(counts[static_cast<int>(Severity::Warning)]) + " warning, " +
                     std::to_string(counts[static_cast<int>(Severity::Info)]) + " info)";
  if (suppressed)
    line += ", " + std::to_string(suppressed) + " suppressed";
  line += " in " + std::to_string(result.scanned_file_count()) + " of " +
          std::to_string(result.files.size()) + " files";
  const auto problems = std::count_if(result.diagnostics.begin(), result.diagnostics.end(),
                                      [](const Diagnostic &d) { return d.level != DiagnosticLevel::Note; });
  if (problems)
    line += "; " + std::to_string(problems) + " input problem" + (problems == 1 ? "" : "s");
  return line;
}

std::string skipped_line(const ScanResult &result) {
  std::map<std::string, std::size_t> by_reason;
  for (const auto &skipped : result.skipped)
    ++by_reason[skipped.reason];
  std::string line = std::to_string(result.skipped.size()) + " not read:";
  const char *separator = " ";
  for (const auto &[reason, count] : by_reason) {
    line += separator + std::to_string(count) + " " + reason;
    separator = ", ";
  }
  return line + " (listed in the JSON report)";
}

namespace {

// The "Entry points" table, above the findings.
void write_entry_points(std::ostream &out, const Assessment &assessment, const Palette &palette) {
  std::size_t hidden = 0;
  const auto shown = shown_entry_points(assessment, 20, hidden);
  if (shown.empty())
    return;
  out << palette.paint("Entry points", "1") << " (" << assessment.entry_points.size() << ")\n";
  std::size_t path_width = 5, purpose_width = 7, mac_width = 4;
  for (const EntryAssessment *entry : shown) {
    path_width = std::max(path_width, terminal_safe(entry->entry.path).size());
    purpose_width = std::max(purpose_width, to_string(entry->entry.purpose).size());
    mac_width = std::max(mac_width, entry_mac_text(*entry).size());
  }
  const auto pad = [](std::string text, std::size_t width) {
    // Width in code points: the hours use an en dash.
    const auto width_of_text = static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    text.append(width > width_of_text ? width - width_of_text : 0, ' ');
    return text;
  };
  out << "  " << pad("entry", path_width) << "  " << pad("purpose", purpose_width) << "  "
      << pad("Mac?", mac_width) << "  " << pad("effort", 12) << "  blocked by\n";
  for (const EntryAssessment *entry : shown) {
    const std::string blockers = entry_blockers_text(*entry);
    out << "  " << pad(terminal_safe(entry->entry.path), path_width) << "  "
        << pad(std::string(to_string(entry->entry.purpose)), purpose_width) << "  "
        << pad(entry_mac_text(*entry), mac_width) << "  " << pad(format_hours(entry->hours), 12) << "  "
        << (blockers.empty() ? "-" : terminal_safe(blockers)) << "\n";
  }
  if (hidden)
    out << "  (" << hidden << " more: tests, examples or beyond the first 20; the JSON report lists them)\n";
}

} // namespace

std::vector<const EntryAssessment *> shown_entry_points(const Assessment &assessment, std::size_t limit,
                                                        std::size_t &hidden) {
  std::vector<const EntryAssessment *> shown;
  for (const EntryAssessment &entry : assessment.entry_points)
    if (entry.entry.scope != EntryScope::Test && entry.entry.scope != EntryScope::Example &&
        shown.size() < limit)
      shown.push_back(&entry);
  hidden = assessment.entry_points.size() - shown.size();
  return shown;
}

std::string entry_blockers_text(const EntryAssessment &entry) {
  std::string text;
  for (const EntryBlocker &blocker : entry.blockers)
    text += (text.empty() ? "" : ", ") + blocker.rule_id +
            (blocker.count > 1 ? " x" + std::to_string(blocker.count) : std::string()) + " (" + blocker.path +
            ":" + std::to_string(blocker.line) + ")";
  return text;
}

std::string entry_mac_text(const EntryAssessment &entry) {
  std::string text = entry.mac;
  std::replace(text.begin(), text.end(), '-', ' ');
  return text == "needs cuda" ? "needs CUDA" : text == "optional cuda path" ? "optional CUDA path" : text;
}

namespace {

// The paths of the files the scan found, to tell them from other paths a
// diagnostic can name.
std::set<std::string_view> paths_of_files(const ScanResult &result) {
  std::set<std::string_view> paths;
  for (const auto &file : result.files)
    paths.insert(file.path);
  return paths;
}

} // namespace

void write_text_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                       const TextOptions &options) {
  const Palette palette{options.color};
  if (context.assessment)
    write_entry_points(out, *context.assessment, palette);
  std::string current_path;
  for (const auto &finding : result.findings) {
    if (finding.suppressed)
      continue;
    const std::string shown_path = terminal_safe(path_for_display(result, finding.path));
    if (finding.path != current_path) {
      current_path = finding.path;
      out << "\n" << palette.paint(shown_path, "1") << "\n";
    }
    const std::string severity(to_string(static_cast<Severity>(finding.severity)));
    out << shown_path << ":" << finding.span.line << ":" << finding.span.column << ": "
        << palette.paint(terminal_safe(finding.rule_id), "1") << " "
        << palette.paint(severity, severity_colour(finding.severity)) << ": "
        << terminal_safe(finding.message);
    if (finding.guard != Guard::None)
      out << " [guarded: " << to_string(finding.guard) << "]";
    out << "\n";
    const std::string number = finding.cell >= 0 ? "cell " + std::to_string(finding.cell + 1) + ":" +
                                                       std::to_string(finding.cell_line)
                                                 : std::to_string(finding.span.line);
    const std::string gutter(number.size(), ' ');
    out << "  " << gutter << " |\n";
    out << "  " << palette.paint(number, "34") << " | " << shown_snippet(finding.snippet) << "\n";
    out << "  " << gutter << " | " << palette.paint(caret_line(finding), severity_colour(finding.severity))
        << "\n";
    if (finding.rule && !finding.rule->replacement.empty())
      out << "  " << gutter << " = fix: " << terminal_safe(finding.rule->replacement) << "\n";
  }
  if (!result.diagnostics.empty()) {
    out << "\n";
    const std::set<std::string_view> scanned_paths = paths_of_files(result);
    for (const auto &diagnostic : result.diagnostics) {
      // A scanned file's path reads from the current directory; a config
      // or baseline path is already shown as the user gave it.
      const std::string path =
          scanned_paths.count(diagnostic.path) ? path_for_display(result, diagnostic.path) : diagnostic.path;
      out << palette.paint(std::string(to_string(diagnostic.level)),
                           diagnostic.level == DiagnosticLevel::Error ? "1;31" : "2")
          << ": " << terminal_safe(path);
      if (diagnostic.line)
        out << ":" << diagnostic.line;
      out << ": " << terminal_safe(diagnostic.message) << " [" << terminal_safe(diagnostic.code) << "]\n";
    }
  }
  out << "\n" << summary_line(result) << "\n";
  if (!result.skipped.empty())
    out << skipped_line(result) << "\n";
  if (!context.no_decision_reason.empty())
    out << "No decision: " << terminal_safe(context.no_decision_reason) << "\n";
  if (context.assessment) {
    const Outcome outcome = context.assessment->decision.outcome;
    const char *colour = outcome == Outcome::Adapt ? "1;32" : outcome == Outcome::Dual ? "1;33" : "1;31";
    const std::string summary =
        terminal_safe(assessment_summary(*context.assessment), KeepLayout::TabAndNewline);
    const std::size_t space = summary.find(' ', 10); // after "Decision: OUTCOME"
    out << summary.substr(0, 10) << palette.paint(summary.substr(10, space - 10), colour)
        << summary.substr(space);
  }
}

std::string assessment_summary(const Assessment &assessment) {
  const Decision &decision = assessment.decision;
  const EffortEstimate &effort = assessment.effort;
  // The headline starts with the outcome; keep what follows its colon.
  std::string text = "Decision: " + std::string(to_string(decision.outcome)) + " - " +
                     (decision.headline.find(": ") == std::string::npos
                          ? decision.headline
                          : decision.headline.substr(decision.headline.find(": ") + 2)) +
                     "\n";
  // The recommended path leads; the native port follows where it differs.
  text += "Effort: " + format_hours(effort.recommended) + " to " + effort.recommended_goal + " (" +
          std::string(to_string(decision.outcome)) + "); " + std::to_string(effort.items.size()) +
          " distinct fix" + (effort.items.size() == 1 ? "" : "es") + " (" +
          std::to_string(effort.open_findings) + " open, " + std::to_string(effort.guarded_findings) +
          " guarded, " + std::to_string(effort.advisory_findings) + " advisory)";
  if (effort.not_estimated)
    text += " + " + std::to_string(effort.not_estimated) + " blocker(s) not estimated";
  if (effort.deferred.high > 0)
    text += "; deferred kernel ports " + format_hours(effort.deferred);
  text += "\n";
  if (format_hours(effort.native_port) != format_hours(effort.recommended))
    text += "Native port: " + native_port_text(effort) + "\n";
  if (effort.recommended_fix.safe_sites + effort.recommended_fix.unsafe_sites > 0)
    text += "Fix: " + fix_credit_sentence(effort.recommended_fix) + "\n";
  if (decision.if_resolved && !decision.what_would_change.empty())
    text += "Would change: " + decision.what_would_change.front() + "\n";
  return text;
}

std::string format_for_extension(const std::string &path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
    return "";
  const std::string extension = to_lower(std::string_view(path).substr(dot + 1));
  if (extension == "json")
    return "json";
  if (extension == "md" || extension == "markdown")
    return "md";
  if (extension == "html" || extension == "htm")
    return "html";
  if (extension == "sarif")
    return "sarif";
  if (extension == "txt")
    return "text";
  return "";
}

} // namespace mpsaudit
