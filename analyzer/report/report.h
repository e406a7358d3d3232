// Writers: they know the report model (ScanResult and the catalog), not how
// findings were made.
#pragma once

#include <ostream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "assess/decision.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit {

// Version of the JSON report's shape (docs/report.schema.json).
inline constexpr int kReportSchemaVersion = 1;

struct ReportContext {
  // A constructor, not aggregate initialisation, so that adding members
  // does not touch every `ReportContext{version, &catalog}`.
  explicit ReportContext(std::string version = {}, const RuleCatalog *rules = nullptr)
      : tool_version(std::move(version)), catalog(rules) {}
  std::string tool_version;
  const RuleCatalog *catalog = nullptr;
  // The migration assessment (decision, effort, memory fit, probe verdicts);
  // writers add their assessment sections when it is present.
  const Assessment *assessment = nullptr;
  // Set when the scan read no file: no assessment, and this says why
  // (JSON: "decision": null and "no_decision_reason").
  std::string no_decision_reason;
  // Absolute path of the scan root, for SARIF's originalUriBaseIds; empty:
  // the writer resolves ScanResult::root itself.
  std::string root_uri;
  // `scan --env`: the user's interpreter records and the disagreements found
  // between them and the probe (docs/acceptance.md); null when not given.
  nlohmann::json environment;
  // `--full`: every finding and every reason, however large the report. By
  // default a text report above kSummaryFindings findings prints a summary,
  // and Markdown caps its lists (docs/report-formats.md).
  bool full = false;
  // A partial scan (pre-commit's named files, --changed-since, --staged):
  // the text and GitHub writers print the findings and no repository
  // verdict, entry points or effort, which a few files cannot support, and
  // the text ends with how to suppress a finding. The other formats keep
  // the assessment, labelled partial.
  bool findings_only = false;
};

// Above this many open findings the text report prints a summary: the
// entry points, the top reasons and a count per directory.
inline constexpr std::size_t kSummaryFindings = 200;

// The "why" every report shows: the strongest cause groups of the deciding
// factors (at most kShownReasonGroups, then how many more), the groups of
// secondary factors, then the reasons that are not factors (entry points,
// effort, fix, memory).
std::vector<std::string> why_lines(const Decision &decision);
// The summaries of the first `limit` cause groups, deciding before
// secondary: the "top blockers" of `--format summary` and of the text report
// on a terminal.
std::vector<std::string> top_cause_groups(const Decision &decision, std::size_t limit);
// Unsuppressed findings per directory (the path's first two components),
// most first.
std::vector<std::pair<std::string, std::size_t>> findings_by_directory(const ScanResult &result);
// Unsuppressed findings.
std::size_t open_finding_count(const ScanResult &result);

// `--format json`: the full report model (docs/report.schema.json), as
// nlohmann's dump(2) would print it, plus a newline; streamed, so a large
// scan's findings are never held twice.
void write_json_report(std::ostream &out, const ScanResult &result, const ReportContext &context);
// The same document in memory (tests, small reports).
nlohmann::json report_to_json(const ScanResult &result, const ReportContext &context);

struct TextOptions {
  bool color = false;
  // A terminal's columns: every line fits (code and table rows cut with an
  // ellipsis, the rest wrapped at spaces); 0 (not a terminal): as written.
  std::size_t width = 0;
  // Standard output is a terminal: the verdict, effort, entry table and top
  // blockers first, then the findings (docs/report-formats.md, "Text").
  bool concise = false;
};
void write_text_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                       const TextOptions &options);

// One line of summary: counts by severity and files scanned.
std::string summary_line(const ScanResult &result);
// Diagnostics about headers the bundled shim does not provide (missing-include).
std::size_t header_gap_count(const ScanResult &result);
// What the report's title names: the scanned path as given, or for `.` the
// current directory's name (never an absolute path).
std::string scanned_name(const ScanResult &result);
// Which config the scan used and whose it is: "Config: app/mpsaudit.toml,
// found in the scanned tree: ..." or "..., named with --config"; "" when none.
// `catalog` names the safety rules a tree's config cannot hide.
std::string config_line(const ScanResult &result, const RuleCatalog *catalog);
// "N not read: A unknown-kind, B not-regular-file" when entries were skipped.
std::string skipped_line(const ScanResult &result);
// How to suppress a finding, with the first open finding's rule as the
// example; "" when no finding is open.
std::string suppression_hint(const ScanResult &result);
// "If you port anyway: 12 steps, 2.3–5.7 d in all" over a KEEP_LINUX_GPU
// plan's porting steps, which the reports fold under it.
std::string port_anyway_title(const Assessment &assessment);
// The assessment's closing lines, one sentence each: every text writer's
// source for them (one figure, one rounding). Empty where one does not apply.
struct AssessmentLines {
  std::string decision;     // "Decision: ADAPT - <the headline's reason>"
  std::string effort;       // "Effort: <recommended path> ...; N distinct fixes (...)"
  std::string native_port;  // "Native port: ...", where it differs from the effort
  std::string fix;          // "Fix: mpsaudit fix --apply removes ...", when it removes anything
  std::string would_change; // "Would change: ...", when resolving the deciding findings would
  // The lines that are present, in the order above.
  std::vector<std::string> in_order() const;
};
AssessmentLines assessment_lines(const Assessment &assessment);
// assessment_lines' lines, each ended by a newline.
std::string assessment_summary(const Assessment &assessment);

// `--format summary`: at most 8 lines for a lab lead or a CI log: the
// decision with its reason, the effort (and the native port where it
// differs), the counts, and the top kSummaryBlockers causes (a partial scan:
// the rules with the most open errors and warnings). The lines are the text
// report's own.
inline constexpr std::size_t kSummaryBlockers = 3;
void write_summary_report(std::ostream &out, const ScanResult &result, const ReportContext &context);

// The entry points a table shows: main, sub-project and container entries
// first, at most `limit`; `hidden` counts the rest (tests, examples, beyond
// the limit), which JSON lists.
std::vector<const EntryAssessment *> shown_entry_points(const Assessment &assessment, std::size_t limit,
                                                        std::size_t &hidden);
// "MPS801 x12 (csrc/a.cu:217), MPS402 (model/attn.py:3)", or "" when none.
// Paths read from the current directory (path_for_display).
std::string entry_blockers_text(const ScanResult &result, const EntryAssessment &entry);
// "needs CUDA", "runs after fixes", ... for the tables.
std::string entry_mac_text(const EntryAssessment &entry);

// `--format md`: for an issue or pull-request comment.
void write_markdown_report(std::ostream &out, const ScanResult &result, const ReportContext &context);
// `--format html`: one self-contained file (inline CSS, JS and SVG charts;
// no network requests).
void write_html_report(std::ostream &out, const ScanResult &result, const ReportContext &context);
// `--format sarif`: SARIF 2.1.0 for GitHub code scanning, as dump(2) would
// print it, plus a newline; results are streamed.
void write_sarif_report(std::ostream &out, const ScanResult &result, const ReportContext &context);
// The same document in memory (tests, small reports).
nlohmann::json report_to_sarif(const ScanResult &result, const ReportContext &context);
// GitHub's primaryLocationLineHash recipe in spirit: a hash of the rule and
// the whitespace-normalised line, with ":<n>" for the n-th equal line of a file.
std::string line_hash(std::string_view rule_id, std::string_view line_text);

// The formats by name and by file extension: report/report_writers.h.

} // namespace mpsaudit
