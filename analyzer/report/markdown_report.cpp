// `--format md`: GitHub-flavoured Markdown for an issue or a pull-request
// comment: the decision, the effort table, the top findings, the action plan.
// Every text from the tree goes through markdown_text or markdown_code
// (report/markdown_text.h), in every section.
#include <algorithm>
#include <functional>

#include "core/text.h"
#include "report/markdown_text.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

std::string finding_location(const ScanResult &result, const Finding &finding) {
  std::string where = path_for_display(result, finding.path) + ":" + std::to_string(finding.span.line);
  if (finding.cell >= 0)
    where += " (cell " + std::to_string(finding.cell + 1) + ")";
  return where;
}

// `shown_name` turns a row's name into what the table prints (a directory
// from the current directory).
void rollup_table(std::ostream &out, const char *heading, const std::vector<RollUp> &rows, std::size_t limit,
                  const std::function<std::string(const std::string &)> &shown_name = {}) {
  out << "| " << heading << " | Effort | `fix` removes | Open findings |\n|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    out << "| " << markdown_text(shown_name ? shown_name(rows[i].name) : rows[i].name) << " | "
        << format_hours(rows[i].hours) << " | "
        << (rows[i].fix.safe_sites ? format_hours(rows[i].fix.safe) : std::string("–")) << " | "
        << rows[i].findings << " |\n";
  if (rows.size() > limit)
    out << "| *" << rows.size() - limit << " more* | | | |\n";
  out << "\n";
}

const char *status_mark(AcceptanceStatus status) {
  switch (status) {
  case AcceptanceStatus::Confirmed:
    return "✅ confirmed";
  case AcceptanceStatus::Refuted:
    return "❌ refuted";
  case AcceptanceStatus::Likely:
    return "🟡 likely";
  case AcceptanceStatus::NotYetConfirmed:
    break;
  }
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
    out << "- " << markdown_text(line) << "\n";
  if (decision.reasons.size() <= lines.size())
    return;
  const std::size_t limit = full ? decision.reasons.size() : kReasonList;
  out << "\n<details><summary>All " << decision.reasons.size() << " reasons</summary>\n\n";
  for (std::size_t i = 0; i < decision.reasons.size() && i < limit; ++i)
    out << "- " << markdown_text(decision.reasons[i]) << "\n";
  if (decision.reasons.size() > limit)
    out << "\n" << decision.reasons.size() - limit << " more: `--full` or the JSON report lists them.\n";
  out << "\n</details>\n";
}

} // namespace

void write_markdown_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  out << "# mpsaudit: can " << markdown_code(scanned_name(result)) << " run on an Apple-Silicon Mac?\n\n";
  const Assessment *assessment = context.assessment;
  if (!context.no_decision_reason.empty())
    out << "## No decision\n\n" << markdown_text(context.no_decision_reason) << "\n\n";
  if (assessment) {
    const Decision &decision = assessment->decision;
    out << "## Decision: **" << to_string(decision.outcome) << "**\n\n";
    out << "> " << outcome_meaning(decision.outcome) << "\n\n";
    out << markdown_text(decision.headline) << "\n\n";
    write_why(out, decision, context.full);
    out << "\n### What would change the decision\n\n";
    for (const auto &change : decision.what_would_change)
      out << "- " << markdown_text(change) << "\n";
    out << "\n";

    const EffortEstimate &effort = assessment->effort;
    const RecommendedPlan &plan = assessment->recommended;
    out << "## Effort: " << format_hours(plan.hours) << "\n\n";
    out << "- **Recommended path (" << to_string(decision.outcome) << "):** " << format_hours(plan.hours)
        << " to " << markdown_text(plan.goal) << ": " << markdown_text(plan.basis) << ".\n";
    out << (plan.path == RecommendedPath::KeepLinux ? "- **If you port anyway:** "
                                                    : "- **Native port of everything:** ")
        << markdown_text(native_port_text(effort, plan.path))
        << ": the items below, summed low with low and high with high, plus the deferred kernel ports.\n\n";
    out << counted(effort.items.size(), "distinct fix", "distinct fixes") << " for "
        << counted(effort.open_findings, "open finding") << " (" << effort.guarded_findings << " guarded and "
        << counted(effort.advisory_findings, "advisory finding") << " need no change)";
    if (effort.not_estimated)
      out << "; " << counted(effort.not_estimated, "blocker") << (effort.not_estimated == 1 ? " is" : " are")
          << " not estimated";
    if (effort.deferred.high > 0)
      out << "; kernel ports a fallback lets wait: " << format_hours(effort.deferred);
    out << ". Model: " << markdown_code(assessment->effort_model_origin) << " (docs/effort-model.md).\n\n";
    if (plan.fix.safe_sites + plan.fix.unsafe_sites > 0)
      out << markdown_text(fix_credit_sentence(plan.fix)) << "\n\n";
    rollup_table(out, "Category", effort.by_category, 20);
    rollup_table(out, "Component role", effort.by_role, 10);
    rollup_table(out, "Directory", effort.by_directory, 10, [&result](const std::string &directory) {
      return directory_for_display(result, directory);
    });

    out << "## Memory fit\n\n";
    out << (assessment->memory.has_estimate
                ? markdown_text(assessment->memory.summary)
                : std::string("No checkpoint, model config or stated VRAM found: not estimated."))
        << "\n\n";

    out << "## Acceptance levels\n\n| Level | Status | Evidence |\n|---|---|---|\n";
    for (const auto &level : assessment->acceptance)
      out << "| " << level.level << ". " << markdown_text(level.title) << " | " << status_mark(level.status)
          << " | " << markdown_text(level.evidence) << " |\n";
    out << "\n";
  }

  if (assessment) {
    std::size_t hidden = 0;
    const auto shown = shown_entry_points(*assessment, 20, hidden);
    if (!shown.empty()) {
      out << "## Entry points\n\n| Entry | Purpose | Runs on a Mac? | Blocked by | Effort "
             "|\n|---|---|---|---|---|\n";
      for (const EntryAssessment *entry : shown) {
        const std::string blockers = entry_blockers_text(result, *entry);
        out << "| " << markdown_code(path_for_display(result, entry->entry.path)) << " | "
            << to_string(entry->entry.purpose) << " (" << markdown_text(entry->entry.purpose_source) << ") | "
            << markdown_text(entry_mac_text(*entry)) << " | "
            << (blockers.empty() ? std::string("—") : markdown_text(blockers)) << " | "
            << format_hours(entry->hours) << " |\n";
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
      out << "| " << markdown_text(finding.rule_id) << " | "
          << to_string(static_cast<Severity>(finding.severity))
          << (finding.guard != Guard::None ? " (guarded)" : "") << " | "
          << markdown_code(finding_location(result, finding)) << " | " << markdown_text(finding.message)
          << " | " << markdown_text(finding.rule ? finding.rule->replacement : "") << " |\n";
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
    bool folded = false;
    for (std::size_t i = 0; i < assessment->plan.size() && i < plan_limit; ++i) {
      const ActionStep &step = assessment->plan[i];
      if (step.if_port_anyway && !folded) {
        out << "\n<details><summary>" << markdown_text(port_anyway_title(*assessment)) << "</summary>\n\n";
        folded = true;
      }
      out << step.order << ". **" << markdown_text(step.title) << "**";
      if (step.count)
        out << " — " << step.extent();
      out << " — " << (step.hours.high > 0 ? format_hours(step.hours) : std::string("not estimated"));
      if (step.fix.safe_sites)
        out << " — `mpsaudit fix` edits " << step.fix.safe_sites << " of them";
      if (!step.detail.empty())
        out << "  \n   " << markdown_text(step.detail);
      out << "\n";
    }
    if (assessment->plan.size() > plan_limit)
      out << "\n"
          << assessment->plan.size() - plan_limit << " more steps: `--full` or the JSON report lists them.\n";
    if (folded)
      out << "\n</details>\n";
    out << "\n";
  }
  if (const std::string config = config_line(result, context.catalog); !config.empty())
    out << markdown_text(config) << "\n\n";
  out << "<sub>" << markdown_text(summary_line(result)) << " · mpsaudit "
      << markdown_text(context.tool_version) << "</sub>\n";
}

} // namespace mpsaudit
