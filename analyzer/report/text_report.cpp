#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include "assess/reason_groups.h"
#include "core/text.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

struct Palette {
  bool on = false;
  // Fitting to a terminal this many columns wide (0: not fitting): lines
  // that are cut rather than wrapped (code, table rows) start with kCutLine
  // (fit_to_width).
  std::size_t width = 0;
  std::string paint(std::string_view text, const char *code) const {
    if (!on)
      return std::string(text);
    return std::string("\033[") + code + "m" + std::string(text) + "\033[0m";
  }
  const char *cut() const { return width > 0 ? "\x01" : ""; }
};

// Marks a line to cut, not wrap. terminal_safe turns any control character
// from the tree into visible text, so only the writer emits this one.
constexpr char kCutLine = '\x01';

// Every line of a rendered report fitted to `width` columns: marked lines
// (code, table rows) cut with an ellipsis, the rest wrapped at spaces under
// their own indent ("  - " bullets and "= fix: " under their text, an
// unindented line two columns in).
std::string fit_to_width(const std::string &text, std::size_t width) {
  std::string fitted;
  fitted.reserve(text.size());
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.front() == kCutLine) {
      fitted += cut_to_width(line.substr(1), width);
    } else {
      std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
      if (line.substr(indent, 2) == "- ")
        indent += 2;
      else if (line.substr(indent, 2) == "= " && line.find(": ", indent) != std::string_view::npos)
        indent = line.find(": ", indent) + 2; // "= fix: ...": continued under the text
      else if (indent == 0)
        indent = 2; // "Decision: ...", a finding's location: continued indented
      fitted += wrap_to_width(line, width, indent);
    }
    if (end < text.size())
      fitted += '\n';
    start = end + 1;
  }
  return fitted;
}

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

// The summary's grouping: the first two directories ("a/b" for
// "a/b/c/d.py"), "." for a file at the root.
std::string summary_directory(const std::string &path) {
  const std::size_t first = path.find('/');
  if (first == std::string::npos)
    return ".";
  const std::size_t second = path.find('/', first + 1);
  return second == std::string::npos ? path.substr(0, first) : path.substr(0, second);
}

// A summary lists this many directories and diagnostics; on a terminal,
// fewer diagnostics, so that the verdict and its reasons fit one screenful
// or two.
constexpr std::size_t kSummaryDirectories = 15;
constexpr std::size_t kSummaryDiagnostics = 20;
constexpr std::size_t kConciseDiagnostics = 5;
// Rows of the entry table: piped, and on a terminal.
constexpr std::size_t kEntryRows = 20;
constexpr std::size_t kConciseEntryRows = 10;

// One finding: location, rule, severity and message, then its code line
// with a caret under the finding and the rule's fix.
void write_finding(std::ostream &out, const Finding &finding, const std::string &shown_path,
                   const Palette &palette) {
  const std::string severity(to_string(static_cast<Severity>(finding.severity)));
  out << shown_path << ":" << finding.span.line << ":" << finding.span.column << ": "
      << palette.paint(terminal_safe(finding.rule_id), "1") << " "
      << palette.paint(severity, severity_colour(finding.severity)) << ": " << terminal_safe(finding.message);
  if (finding.guard != Guard::None)
    out << " [guarded: " << to_string(finding.guard) << "]";
  out << "\n";
  const std::string number =
      finding.cell >= 0 ? "cell " + std::to_string(finding.cell + 1) + ":" + std::to_string(finding.cell_line)
                        : std::to_string(finding.span.line);
  const std::string gutter(number.size(), ' ');
  out << "  " << gutter << " |\n";
  out << palette.cut() << "  " << palette.paint(number, "34") << " | " << shown_snippet(finding.snippet)
      << "\n";
  out << palette.cut() << "  " << gutter << " | "
      << palette.paint(caret_line(finding), severity_colour(finding.severity)) << "\n";
  if (finding.rule && !finding.rule->replacement.empty())
    out << "  " << gutter << " = fix: " << terminal_safe(finding.rule->replacement) << "\n";
}

} // namespace

std::string scanned_name(const ScanResult &result) {
  if (!result.root.empty() && result.root != "." && result.root != "./")
    return result.root;
  std::error_code error;
  const std::string name = std::filesystem::current_path(error).filename().string();
  return error || name.empty() ? "." : name;
}

namespace {

// A header the bundled shim does not provide (torch, CUDA, a vendored
// library): the analysis went on without it, and the user has nothing to fix.
bool is_header_gap(const Diagnostic &diagnostic) {
  return diagnostic.code == "missing-include";
}

} // namespace

std::size_t header_gap_count(const ScanResult &result) {
  return static_cast<std::size_t>(
      std::count_if(result.diagnostics.begin(), result.diagnostics.end(), is_header_gap));
}

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
  // Input problems are what the user can act on; headers the shim lacks are not.
  const auto problems =
      std::count_if(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic &d) {
        return d.level != DiagnosticLevel::Note && !is_header_gap(d);
      });
  if (problems)
    line += "; " + counted(problems, "input problem");
  if (const std::size_t gaps = header_gap_count(result))
    line += "; " + counted(gaps, "header") + " not found";
  return line;
}

std::string config_line(const ScanResult &result, const RuleCatalog *catalog) {
  const WorkflowSummary &workflow = result.workflow;
  if (workflow.config_file.empty())
    return {};
  const std::string shown = workflow.config_shown.empty() ? workflow.config_file : workflow.config_shown;
  if (!workflow.config_from_tree)
    return "Config: " + shown + ", named with --config";
  std::string safety_rules;
  if (catalog)
    for (const Rule &rule : catalog->rules())
      if (rule.safety)
        safety_rules += (safety_rules.empty() ? "" : ", ") + rule.id;
  std::string line = "Config: " + shown + ", found in the scanned tree: it cannot hide " +
                     (safety_rules.empty() ? std::string("safety findings") : "findings of " + safety_rules);
  if (workflow.safety_kept)
    line += " (" + std::to_string(workflow.safety_kept) + " shown that it would hide)";
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
void write_entry_points(std::ostream &out, const ScanResult &result, const Assessment &assessment,
                        const Palette &palette, std::size_t rows) {
  std::size_t hidden = 0;
  const auto shown = shown_entry_points(assessment, rows, hidden);
  if (shown.empty())
    return;
  out << palette.paint("Entry points", "1") << " (" << assessment.entry_points.size() << ")\n";
  std::size_t path_width = 5, purpose_width = 7, mac_width = 4;
  for (const EntryAssessment *entry : shown) {
    path_width = std::max(path_width, terminal_safe(path_for_display(result, entry->entry.path)).size());
    purpose_width = std::max(purpose_width, to_string(entry->entry.purpose).size());
    mac_width = std::max(mac_width, entry_mac_text(*entry).size());
  }
  // On a terminal, a long path gives up its head ("…/a/b.py") so that the
  // verdict, the effort and the start of the blockers stay in view.
  const std::size_t other_columns = 2 + 2 + purpose_width + 2 + mac_width + 2 + 12 + 2 + 10;
  if (palette.width > 0 && path_width + other_columns > palette.width)
    path_width = std::max<std::size_t>(16, palette.width > other_columns ? palette.width - other_columns : 0);
  const auto shown_path = [&](const std::string &path) {
    const std::string safe = terminal_safe(path);
    const std::size_t columns = display_width(safe);
    if (columns <= path_width)
      return safe;
    std::size_t from = safe.size();
    for (std::size_t kept = 0; kept + 1 < path_width && from > 0;) // the tail, whole code points
      if ((static_cast<unsigned char>(safe[--from]) & 0xC0) != 0x80)
        ++kept;
    return "\u2026" + safe.substr(from);
  };
  const auto pad = [](std::string text, std::size_t width) {
    // Width in code points: the hours use an en dash.
    const auto width_of_text = static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    text.append(width > width_of_text ? width - width_of_text : 0, ' ');
    return text;
  };
  out << palette.cut() << "  " << pad("entry", path_width) << "  " << pad("purpose", purpose_width) << "  "
      << pad("Mac?", mac_width) << "  " << pad("effort", 12) << "  blocked by\n";
  for (const EntryAssessment *entry : shown) {
    const std::string blockers = entry_blockers_text(result, *entry);
    out << palette.cut() << "  " << pad(shown_path(path_for_display(result, entry->entry.path)), path_width)
        << "  " << pad(std::string(to_string(entry->entry.purpose)), purpose_width) << "  "
        << pad(entry_mac_text(*entry), mac_width) << "  " << pad(format_hours(entry->hours), 12) << "  "
        << (blockers.empty() ? "-" : terminal_safe(blockers)) << "\n";
  }
  if (hidden)
    out << "  (" << hidden << " more: tests, examples or beyond the first " << rows
        << "; the JSON report lists them)\n";
}

// "Why": the grouped reasons; with --full, every reason after them.
void write_why(std::ostream &out, const Decision &decision, const Palette &palette, bool full) {
  out << "\n" << palette.paint("Why", "1") << "\n";
  for (const std::string &line : why_lines(decision))
    out << "  - " << terminal_safe(line) << "\n";
  if (!full) {
    if (decision.reasons.size() > why_lines(decision).size())
      out << "  (" << decision.reasons.size() << " reasons in all: --full lists them)\n";
    return;
  }
  out << palette.paint("Every reason", "1") << "\n";
  for (const std::string &reason : decision.reasons)
    out << "  - " << terminal_safe(reason) << "\n";
}

// On a terminal, "Why" is the strongest few cause groups, the top blockers
// of `--format summary`.
void write_top_reasons(std::ostream &out, const Decision &decision, const Palette &palette) {
  const std::vector<std::string> groups = top_cause_groups(decision, kSummaryBlockers);
  if (groups.empty())
    return;
  out << "\n" << palette.paint("Why", "1") << "\n";
  for (const std::string &group : groups)
    out << "  - " << terminal_safe(group) << "\n";
  out << "  (" << counted(decision.reasons.size(), "reason") << " in all: --full lists them)\n";
}

// The assessment's lines, the outcome in its colour.
void write_assessment_lines(std::ostream &out, const std::vector<std::string> &lines, Outcome outcome,
                            const Palette &palette) {
  const char *colour = outcome == Outcome::Adapt ? "1;32" : outcome == Outcome::Dual ? "1;33" : "1;31";
  const std::string decided = "Decision: " + std::string(to_string(outcome));
  for (const std::string &line : lines) {
    const std::string safe = terminal_safe(line, KeepLayout::TabAndNewline);
    if (starts_with(safe, decided))
      out << "Decision: " << palette.paint(to_string(outcome), colour) << safe.substr(decided.size()) << "\n";
    else
      out << safe << "\n";
  }
}

// Every unsuppressed finding, grouped under its file, with its code line.
void write_findings(std::ostream &out, const ScanResult &result, const Palette &palette) {
  std::string current_path;
  for (const auto &finding : result.findings) {
    if (finding.suppressed)
      continue;
    const std::string shown_path = terminal_safe(path_for_display(result, finding.path));
    if (finding.path != current_path) {
      current_path = finding.path;
      out << "\n" << palette.paint(shown_path, "1") << "\n";
    }
    write_finding(out, finding, shown_path, palette);
  }
}

// The summary's table: open findings per directory, the largest first.
void write_directory_counts(std::ostream &out, const ScanResult &result, const Palette &palette) {
  const auto rows = findings_by_directory(result);
  out << "\n" << palette.paint("Findings by directory", "1") << "\n";
  std::size_t width = 9;
  for (std::size_t i = 0; i < rows.size() && i < kSummaryDirectories; ++i)
    width = std::max(width, terminal_safe(directory_for_display(result, rows[i].first)).size());
  for (std::size_t i = 0; i < rows.size() && i < kSummaryDirectories; ++i) {
    const std::string name = terminal_safe(directory_for_display(result, rows[i].first));
    out << "  " << name << std::string(width - name.size(), ' ') << "  " << rows[i].second << "\n";
  }
  if (rows.size() > kSummaryDirectories) {
    std::size_t rest = 0;
    for (std::size_t i = kSummaryDirectories; i < rows.size(); ++i)
      rest += rows[i].second;
    out << "  (" << rows.size() - kSummaryDirectories << " more directories, " << rest << " findings)\n";
  }
}

// The paths of the files the scan found, to tell them from other paths a
// diagnostic can name.
std::set<std::string_view> paths_of_files(const ScanResult &result) {
  std::set<std::string_view> paths;
  for (const auto &file : result.files)
    paths.insert(file.path);
  return paths;
}

void write_diagnostic(std::ostream &out, const ScanResult &result, const Diagnostic &diagnostic,
                      const std::set<std::string_view> &scanned_paths, const Palette &palette) {
  // A scanned file's path reads from the current directory; a config or
  // baseline path is already shown as the user gave it.
  const std::string path =
      scanned_paths.count(diagnostic.path) ? path_for_display(result, diagnostic.path) : diagnostic.path;
  out << palette.paint(std::string(to_string(diagnostic.level)),
                       diagnostic.level == DiagnosticLevel::Error ? "1;31" : "2")
      << ": " << terminal_safe(path);
  if (diagnostic.line)
    out << ":" << diagnostic.line;
  out << ": " << terminal_safe(diagnostic.message) << " [" << terminal_safe(diagnostic.code) << "]\n";
}

// Input problems one per line (at most `limit`); headers not found in one
// line, unless `full`.
void write_diagnostics(std::ostream &out, const ScanResult &result, const Palette &palette, std::size_t limit,
                       bool full) {
  if (result.diagnostics.empty())
    return;
  out << "\n";
  const std::set<std::string_view> scanned_paths = paths_of_files(result);
  std::size_t shown = 0, hidden = 0;
  std::set<std::string_view> gap_files;
  const Diagnostic *first_gap = nullptr;
  for (const Diagnostic &diagnostic : result.diagnostics) {
    if (!full && is_header_gap(diagnostic)) {
      gap_files.insert(diagnostic.path);
      first_gap = first_gap ? first_gap : &diagnostic;
    } else if (shown < limit) {
      write_diagnostic(out, result, diagnostic, scanned_paths, palette);
      ++shown;
    } else {
      ++hidden;
    }
  }
  if (hidden)
    out << "(" << hidden << " more diagnostics: --full lists them)\n";
  if (const std::size_t gaps = header_gap_count(result); first_gap)
    out << palette.paint("note", "2") << ": " << counted(gaps, "#include") << " not found in "
        << counted(gap_files.size(), "file")
        << " (torch, CUDA or vendored headers; the analysis went on without them), e.g. "
        << terminal_safe(path_for_display(result, first_gap->path)) << ":" << first_gap->line
        << ". --full lists them.\n";
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

std::string entry_blockers_text(const ScanResult &result, const EntryAssessment &entry) {
  std::string text;
  for (const EntryBlocker &blocker : entry.blockers)
    text += (text.empty() ? "" : ", ") + blocker.rule_id +
            (blocker.count > 1 ? " x" + std::to_string(blocker.count) : std::string()) + " (" +
            path_for_display(result, blocker.path) + ":" + std::to_string(blocker.line) + ")";
  return text;
}

std::string entry_mac_text(const EntryAssessment &entry) {
  return std::string(table_text(entry.mac));
}

std::string suppression_hint(const ScanResult &result) {
  for (const Finding &finding : result.findings)
    if (!finding.suppressed)
      return "To suppress a finding, end its line with `# mpsaudit: ignore[" + finding.rule_id +
             "] <reason>` (docs/suppressions.md).";
  return {};
}

namespace {

// Piped, the report reads like a compiler's: entry points, reasons,
// findings, then the verdict last. On a terminal (`concise`) the verdict,
// the effort and the top blockers come first and the verdict's line closes
// the report again; --full prints everything in the piped order.
void write_text_lines(std::ostream &out, const ScanResult &result, const ReportContext &context,
                      const Palette &palette, bool concise) {
  const Assessment *assessment = context.findings_only ? nullptr : context.assessment;
  concise = concise && !context.full;
  const AssessmentLines lines = assessment ? assessment_lines(*assessment) : AssessmentLines{};
  if (assessment && concise) {
    write_assessment_lines(out, lines.in_order(), assessment->decision.outcome, palette);
    out << "\n";
  }
  if (assessment) {
    write_entry_points(out, result, *assessment, palette, concise ? kConciseEntryRows : kEntryRows);
    if (concise)
      write_top_reasons(out, assessment->decision, palette);
    else
      write_why(out, assessment->decision, palette, context.full);
  }
  const bool summary_only = !context.full && open_finding_count(result) > kSummaryFindings;
  if (summary_only)
    write_directory_counts(out, result, palette);
  else
    write_findings(out, result, palette);
  const std::size_t diagnostic_limit = !summary_only ? result.diagnostics.size()
                                       : concise     ? kConciseDiagnostics
                                                     : kSummaryDiagnostics;
  write_diagnostics(out, result, palette, diagnostic_limit, context.full);
  out << "\n" << summary_line(result) << "\n";
  if (summary_only)
    out << "Findings not listed (more than " << kSummaryFindings
        << "): --full lists them; --format html or json carries them all\n";
  if (!result.skipped.empty())
    out << skipped_line(result) << "\n";
  if (const std::string config = config_line(result, context.catalog); !config.empty())
    out << terminal_safe(config) << "\n";
  if (!context.no_decision_reason.empty())
    out << "No decision: " << terminal_safe(context.no_decision_reason) << "\n";
  if (context.findings_only) {
    if (const std::string hint = suppression_hint(result); !hint.empty())
      out << hint << "\n";
  } else if (assessment) {
    write_assessment_lines(out, concise ? std::vector<std::string>{lines.decision} : lines.in_order(),
                           assessment->decision.outcome, palette);
  }
}

} // namespace

void write_text_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                       const TextOptions &options) {
  if (options.width > 0) {
    // Rendered whole, then fitted line by line (fit_to_width).
    std::ostringstream rendered;
    write_text_lines(rendered, result, context, Palette{options.color, options.width}, options.concise);
    out << fit_to_width(rendered.str(), options.width);
    return;
  }
  write_text_lines(out, result, context, Palette{options.color, 0}, options.concise);
}

namespace {

// "- MPS101 x12, first at a/b.py:3" for the `limit` rules with open errors
// or warnings, errors first, then the most findings (a partial scan's
// blockers: it has no decision to rank them).
std::vector<std::string> busiest_rule_lines(const ScanResult &result, std::size_t limit) {
  struct Seen {
    int severity = 0;
    std::size_t count = 0;
    const Finding *first = nullptr;
  };
  std::map<std::string, Seen> by_rule;
  for (const Finding &finding : result.findings)
    if (!finding.suppressed && finding.severity != static_cast<int>(Severity::Info)) {
      Seen &seen = by_rule[finding.rule_id];
      seen.severity = std::max(seen.severity, finding.severity);
      if (seen.count++ == 0)
        seen.first = &finding;
    }
  std::vector<std::pair<std::string, Seen>> rules(by_rule.begin(), by_rule.end());
  std::stable_sort(rules.begin(), rules.end(), [](const auto &a, const auto &b) {
    return std::tie(b.second.severity, b.second.count) < std::tie(a.second.severity, a.second.count);
  });
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < std::min(limit, rules.size()); ++i) {
    const auto &[rule, seen] = rules[i];
    lines.push_back("- " + rule +
                    (seen.count > 1 ? " x" + std::to_string(seen.count) + ", first at " : " at ") +
                    seen.first->path.str() + ":" + std::to_string(seen.first->span.line));
  }
  return lines;
}

} // namespace

void write_summary_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  std::vector<std::string> lines;
  const Assessment *assessment = context.findings_only ? nullptr : context.assessment;
  if (assessment) {
    // The decision, effort and native-port lines exactly as the text report
    // prints them (one figure, one rounding); its fix and what-would-change
    // lines are left to the full report.
    const AssessmentLines summary = assessment_lines(*assessment);
    for (const std::string *line : {&summary.decision, &summary.effort, &summary.native_port})
      if (!line->empty())
        lines.push_back(*line);
  }
  std::string counts = summary_line(result);
  if (!result.workflow.partial_scan.empty())
    counts += " (partial scan: " + result.workflow.partial_scan + ")";
  lines.push_back(counts);
  if (!context.no_decision_reason.empty())
    lines.push_back("No decision: " + context.no_decision_reason);
  std::vector<std::string> blockers;
  if (assessment) {
    for (const std::string &group : top_cause_groups(assessment->decision, kSummaryBlockers))
      blockers.push_back("- " + group);
  } else {
    blockers = busiest_rule_lines(result, kSummaryBlockers);
  }
  if (!blockers.empty()) {
    lines.push_back(assessment ? "Top blockers:" : "Top rules:");
    lines.insert(lines.end(), blockers.begin(), blockers.end());
  }
  for (const std::string &line : lines)
    out << terminal_safe(line) << "\n";
}

namespace {

// The first `limit` groups' sentences, then one line for the rest;
// secondary groups say which milder outcome they argue for.
void append_groups(std::vector<std::string> &lines, const std::vector<ReasonGroup> &groups, std::size_t limit,
                   bool secondary) {
  const auto prefix = [&](const ReasonGroup &group) {
    return secondary ? "Also (" + std::string(to_string(group.pushes_to)) + "): " : std::string();
  };
  std::size_t hidden_factors = 0;
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (i < limit)
      lines.push_back(prefix(groups[i]) + groups[i].summary);
    else
      hidden_factors += groups[i].count;
  if (groups.size() > limit)
    lines.push_back((secondary ? "Also " : "And ") + std::to_string(groups.size() - limit) +
                    (groups.size() - limit == 1 ? " more cause (" : " more causes (") +
                    counted(hidden_factors, "reason") + ") in the full list.");
}

} // namespace

std::vector<std::string> why_lines(const Decision &decision) {
  std::vector<std::string> lines;
  // About kShownReasonGroups groups in all: the deciding ones first, and at
  // least two secondary ones when there are any.
  const std::size_t deciding = std::min(decision.deciding_groups.size(), kShownReasonGroups);
  append_groups(lines, decision.deciding_groups, deciding, false);
  append_groups(lines, decision.secondary_groups, std::max<std::size_t>(2, kShownReasonGroups - deciding),
                true);
  lines.insert(lines.end(), decision.context_reasons.begin(), decision.context_reasons.end());
  return lines;
}

std::vector<std::string> top_cause_groups(const Decision &decision, std::size_t limit) {
  std::vector<std::string> groups;
  for (const auto *list : {&decision.deciding_groups, &decision.secondary_groups})
    for (const ReasonGroup &group : *list)
      if (groups.size() < limit)
        groups.push_back(group.summary);
  return groups;
}

std::size_t open_finding_count(const ScanResult &result) {
  return static_cast<std::size_t>(std::count_if(result.findings.begin(), result.findings.end(),
                                                [](const Finding &finding) { return !finding.suppressed; }));
}

std::vector<std::pair<std::string, std::size_t>> findings_by_directory(const ScanResult &result) {
  std::map<std::string, std::size_t> counts;
  for (const Finding &finding : result.findings)
    if (!finding.suppressed)
      ++counts[summary_directory(finding.path.str())];
  std::vector<std::pair<std::string, std::size_t>> rows(counts.begin(), counts.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto &a, const auto &b) { return a.second > b.second; });
  return rows;
}

std::string port_anyway_title(const Assessment &assessment) {
  const auto steps = std::count_if(assessment.plan.begin(), assessment.plan.end(),
                                   [](const ActionStep &step) { return step.if_port_anyway; });
  return "If you port anyway: " + counted(static_cast<std::size_t>(steps), "step") + ", " +
         format_hours(assessment.effort.native_port) + " in all";
}

AssessmentLines assessment_lines(const Assessment &assessment) {
  const Decision &decision = assessment.decision;
  const EffortEstimate &effort = assessment.effort;
  AssessmentLines lines;
  // The headline starts with the outcome; keep what follows its colon.
  lines.decision = "Decision: " + std::string(to_string(decision.outcome)) + " - " +
                   (decision.headline.find(": ") == std::string::npos
                        ? decision.headline
                        : decision.headline.substr(decision.headline.find(": ") + 2));
  // The recommended path leads; the native port follows where it differs.
  const RecommendedPlan &plan = assessment.recommended;
  lines.effort = "Effort: " + format_hours(plan.hours) + " to " + plan.goal + " (" +
                 std::string(to_string(decision.outcome)) + "); " +
                 counted(effort.items.size(), "distinct fix", "distinct fixes") + " (" +
                 std::to_string(effort.open_findings) + " open, " + std::to_string(effort.guarded_findings) +
                 " guarded, " + std::to_string(effort.advisory_findings) + " advisory)";
  if (effort.not_estimated)
    lines.effort += " + " + counted(effort.not_estimated, "blocker") + " not estimated";
  if (effort.deferred.high > 0)
    lines.effort += "; deferred kernel ports " + format_hours(effort.deferred);
  if (format_hours(effort.native_port) != format_hours(plan.hours))
    lines.native_port = "Native port: " + native_port_text(effort, plan.path);
  if (plan.fix.safe_sites + plan.fix.unsafe_sites > 0)
    lines.fix = "Fix: " + fix_credit_sentence(plan.fix);
  if (decision.if_resolved && !decision.what_would_change.empty())
    lines.would_change = "Would change: " + decision.what_would_change.front();
  return lines;
}

std::vector<std::string> AssessmentLines::in_order() const {
  std::vector<std::string> present;
  for (const std::string *line : {&decision, &effort, &native_port, &fix, &would_change})
    if (!line->empty())
      present.push_back(*line);
  return present;
}

std::string assessment_summary(const Assessment &assessment) {
  std::string text;
  for (const std::string &line : assessment_lines(assessment).in_order())
    text += line + "\n";
  return text;
}

} // namespace mpsaudit
