// `--format md`: GitHub-flavoured Markdown for an issue or a pull-request
// comment: the decision, the effort table, the top findings, the action plan.
#include <algorithm>

#include "core/text.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

// Table cells: no pipes or line breaks, no control characters or bidi
// overrides (core/text.h); inline code keeps backticks balanced.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : terminal_safe(text, KeepLayout::TabAndNewline)) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

std::string code(std::string_view text) {
  std::string body = cell(text);
  const std::string fence = body.find('`') == std::string::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " : "") + body + (fence.size() > 1 ? " " : "") + fence;
}

std::string finding_location(const Finding &finding) {
  std::string where = finding.path + ":" + std::to_string(finding.span.line);
  if (finding.cell >= 0)
    where += " (cell " + std::to_string(finding.cell + 1) + ")";
  return where;
}

void rollup_table(std::ostream &out, const char *heading, const std::vector<RollUp> &rows,
                  std::size_t limit) {
  out << "| " << heading << " | Effort | `fix` removes | Open findings |\n|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    out << "| " << cell(rows[i].name) << " | " << format_hours(rows[i].hours) << " | "
        << (rows[i].fix.safe_sites ? format_hours(rows[i].fix.safe) : std::string("–")) << " | "
        << rows[i].findings << " |\n";
  if (rows.size() > limit)
    out << "| *" << rows.size() - limit << " more* | | | |\n";
  out << "\n";
}

const char *status_mark(const std::string &status) {
  if (status == "confirmed")
    return "✅ confirmed";
  if (status == "refuted")
    return "❌ refuted";
  if (status == "likely")
    return "🟡 likely";
  return "⚪ not yet confirmed";
}

// Without --full: the longest reason list and action plan a comment shows.
constexpr std::size_t kReasonList = 40;
constexpr std::size_t kPlanSteps = 30;

// "Why": the reasons grouped by cause, then every reason one <details> away
// (the first kReasonList without --full).
void write_why(std::ostream &out, const Decision &decision, bool full) {
  out << "### Why\n\n";
  const std::vector<std::string> lines = why_lines(decision);
  for (const auto &line : lines)
    out << "- " << cell(line) << "\n";
  if (decision.reasons.size() <= lines.size())
    return;
  const std::size_t limit = full ? decision.reasons.size() : kReasonList;
  out << "\n<details><summary>All " << decision.reasons.size() << " reasons</summary>\n\n";
  for (std::size_t i = 0; i < decision.reasons.size() && i < limit; ++i)
    out << "- " << cell(decision.reasons[i]) << "\n";
  if (decision.reasons.size() > limit)
    out << "\n" << decision.reasons.size() - limit << " more: `--full` or the JSON report lists them.\n";
  out << "\n</details>\n";
}

} // namespace

void write_markdown_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  out << "# mpsaudit: can `" << cell(scanned_name(result)) << "` run on an Apple-Silicon Mac?\n\n";
  const Assessment *assessment = context.assessment;
  if (!context.no_decision_reason.empty())
    out << "## No decision\n\n" << cell(context.no_decision_reason) << "\n\n";
  if (assessment) {
    const Decision &decision = assessment->decision;
    out << "## Decision: **" << to_string(decision.outcome) << "**\n\n";
    out << "> " << outcome_meaning(decision.outcome) << "\n\n";
    out << terminal_safe(decision.headline) << "\n\n";
    write_why(out, decision, context.full);
    out << "\n### What would change the decision\n\n";
    for (const auto &change : decision.what_would_change)
      out << "- " << cell(change) << "\n";
    out << "\n";

    const EffortEstimate &effort = assessment->effort;
    out << "## Effort: " << format_hours(effort.recommended) << "\n\n";
    out << "- **Recommended path (" << to_string(decision.outcome) << "):** "
        << format_hours(effort.recommended) << " to " << cell(effort.recommended_goal) << ": "
        << cell(effort.recommended_basis) << ".\n";
    out << "- **Native port of everything:** " << cell(native_port_text(effort))
        << ": the items below, summed low with low and high with high, plus the deferred kernel ports.\n\n";
    out << effort.items.size() << " distinct fixes for " << effort.open_findings << " open findings ("
        << effort.guarded_findings << " guarded and " << effort.advisory_findings
        << " advisory findings need no change)";
    if (effort.not_estimated)
      out << "; " << effort.not_estimated << " blocker(s) are not estimated";
    if (effort.deferred.high > 0)
      out << "; kernel ports a fallback lets wait: " << format_hours(effort.deferred);
    out << ". Model: `" << cell(assessment->effort_model_origin) << "` (docs/effort-model.md).\n\n";
    if (effort.recommended_fix.safe_sites + effort.recommended_fix.unsafe_sites > 0)
      out << cell(fix_credit_sentence(effort.recommended_fix)) << "\n\n";
    rollup_table(out, "Category", effort.by_category, 20);
    rollup_table(out, "Component role", effort.by_role, 10);
    rollup_table(out, "Directory", effort.by_directory, 10);

    out << "## Memory fit\n\n";
    out << (assessment->memory.has_estimate
                ? cell(assessment->memory.summary)
                : std::string("No checkpoint, model config or stated VRAM found: not estimated."))
        << "\n\n";

    out << "## Acceptance levels\n\n| Level | Status | Evidence |\n|---|---|---|\n";
    for (const auto &level : assessment->acceptance)
      out << "| " << level.level << ". " << cell(level.title) << " | " << status_mark(level.status) << " | "
          << cell(level.evidence) << " |\n";
    out << "\n";
  }

  if (assessment) {
    std::size_t hidden = 0;
    const auto shown = shown_entry_points(*assessment, 20, hidden);
    if (!shown.empty()) {
      out << "## Entry points\n\n| Entry | Purpose | Runs on a Mac? | Blocked by | Effort "
             "|\n|---|---|---|---|---|\n";
      for (const EntryAssessment *entry : shown) {
        const std::string blockers = entry_blockers_text(*entry);
        out << "| `" << cell(entry->entry.path) << "` | " << to_string(entry->entry.purpose) << " ("
            << cell(entry->entry.purpose_source) << ") | " << entry_mac_text(*entry) << " | "
            << (blockers.empty() ? std::string("—") : cell(blockers)) << " | " << format_hours(entry->hours)
            << " |\n";
      }
      if (hidden)
        out << "\n" << hidden << " more (tests, examples or beyond the first 20) in the JSON report.\n";
      out << "\n";
    }
  }

  // Top findings: errors first, then warnings; guarded and info last.
  std::vector<const Finding *> open;
  for (const auto &finding : result.findings)
    if (!finding.suppressed)
      open.push_back(&finding);
  std::stable_sort(open.begin(), open.end(),
                   [](const Finding *a, const Finding *b) { return a->severity > b->severity; });
  const std::size_t limit = 25;
  out << "## Top findings\n\n";
  if (open.empty()) {
    out << "No findings.\n\n";
  } else {
    out << "| Rule | Severity | Location | Finding | Fix |\n|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < open.size() && i < limit; ++i) {
      const Finding &finding = *open[i];
      out << "| " << cell(finding.rule_id) << " | " << to_string(static_cast<Severity>(finding.severity))
          << (finding.guard != Guard::None ? " (guarded)" : "") << " | " << code(finding_location(finding))
          << " | " << cell(finding.message) << " | " << cell(finding.rule ? finding.rule->replacement : "")
          << " |\n";
    }
    if (open.size() > limit)
      out << "\n"
          << open.size() - limit
          << " more findings in the full report (`--format html` or `--format json`).\n";
    out << "\n";
  }

  if (assessment) {
    out << "## Action plan\n\n";
    if (assessment->plan.empty())
      out << "Nothing to do.\n";
    const std::size_t plan_limit = context.full ? assessment->plan.size() : kPlanSteps;
    for (std::size_t i = 0; i < assessment->plan.size() && i < plan_limit; ++i) {
      const ActionStep &step = assessment->plan[i];
      out << step.order << ". **" << cell(step.title) << "**";
      if (step.count)
        out << " — " << step.count << (step.count == 1 ? " site" : " sites") << " in " << step.files
            << (step.files == 1 ? " file" : " files");
      out << " — " << (step.hours.high > 0 ? format_hours(step.hours) : std::string("not estimated"));
      if (step.fix.safe_sites)
        out << " — `mpsaudit fix` edits " << step.fix.safe_sites << " of them";
      if (!step.detail.empty())
        out << "  \n   " << cell(step.detail);
      out << "\n";
    }
    if (assessment->plan.size() > plan_limit)
      out << "\n"
          << assessment->plan.size() - plan_limit << " more steps: `--full` or the JSON report lists them.\n";
    out << "\n";
  }
  out << "<sub>" << cell(summary_line(result)) << " · mpsaudit " << cell(context.tool_version) << "</sub>\n";
}

} // namespace mpsaudit
