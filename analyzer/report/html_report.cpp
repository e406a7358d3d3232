// `--format html`: one self-contained page. CSS, script and the SVG charts
// are inline and a Content-Security-Policy forbids every network request, so
// the file works offline and can be attached to an issue as it is.
//
// Elements tests and scripts read (docs/report-formats.md):
//   #decision[data-outcome]              the outcome
//   #count-findings, #count-error, #count-warning, #count-info,
//   #count-suppressed [data-count]       the summary's counts
//   #effort-recommended[data-low][data-high]  the recommended path's hours
//   #effort-native-port[data-low][data-high]  the native port of everything
//   #effort-total[data-low][data-high]   the effort range in hours
//   #reasons, #all-reasons               the grouped and the full "why"
//   #findings details.file[data-path]    one per file with findings
//   #findings tbody tr.finding           one row per unsuppressed finding
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/text.h"
#include "report/html_parts.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

// What this page adds to kHtmlBaseStyle.
constexpr const char *kStyle =
    R"CSS(.banner{border-radius:8px;padding:16px 20px;color:#fff;margin-bottom:16px}.banner .outcome{font-size:26px;font-weight:700;letter-spacing:.5px}
.banner.ADAPT{background:var(--ok)}.banner.DUAL{background:var(--dual)}.banner.KEEP_LINUX_GPU{background:var(--keep)}
.counts{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}.counts div{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 14px}
.counts b{font-size:20px;display:block}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}
.chart{border:1px solid var(--line);border-radius:6px;padding:10px;min-width:0}.chart h3{font-size:14px;margin:0 0 6px}
.table-scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top;min-width:12ch}
th{background:var(--bg);cursor:pointer;user-select:none}th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
table.findings{table-layout:fixed;min-width:960px}col.where{width:16ch}col.rule{width:14ch}col.message{width:25%}col.code{width:34%}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:4px 6px;border-radius:4px}
details.file{border:1px solid var(--line);border-radius:6px;margin:8px 0}details.file>summary{cursor:pointer;padding:6px 10px;background:var(--bg);border-radius:6px}
details.file[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}details.file .count{color:var(--muted);margin-left:8px}
ul.groups li{margin:4px 0}details#all-reasons{margin:8px 0}details#all-reasons ul{font-size:13px}
.sev-error{color:var(--keep);font-weight:600}.sev-warning{color:var(--dual);font-weight:600}.sev-info{color:#0969da}
.status-confirmed{color:var(--ok)}.status-refuted{color:var(--keep)}.status-likely{color:var(--dual)}.status-not-yet-confirmed{color:var(--muted)}
.filters{display:flex;gap:8px;margin:8px 0}.filters input{flex:1;padding:5px 8px;min-width:0}.muted{color:var(--muted)}
)CSS";

// Filters every file's table (text, severity), opening the files with
// matches while a filter is on. kSortableTablesScript (html_parts.h) sorts
// a file's rows by a header click.
constexpr const char *kScript = R"JS(
(function(){
  var root=document.getElementById('findings');if(!root)return;
  var text=document.getElementById('filter'),sev=document.getElementById('severity-filter');
  var shown=document.getElementById('shown-count'),files=root.querySelectorAll('details.file');
  Array.prototype.forEach.call(files,function(f){f.dataset.open=f.open?'1':'';});
  function apply(){var q=(text.value||'').toLowerCase(),s=sev.value,n=0;
    Array.prototype.forEach.call(files,function(f){var m=0;
      Array.prototype.forEach.call(f.querySelectorAll('tr.finding'),function(r){var ok=(!s||r.dataset.severity===s)&&(!q||r.textContent.toLowerCase().indexOf(q)>=0);
        r.style.display=ok?'':'none';if(ok)m++;});
      n+=m;f.style.display=m?'':'none';f.open=(q||s)?m>0:!!f.dataset.open;});
    shown.textContent=n;}
  text.addEventListener('input',apply);sev.addEventListener('change',apply);
})();
)JS";

std::vector<Bar> rollup_bars(const std::vector<RollUp> &rows, std::size_t limit) {
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    bars.push_back({rows[i].name, rows[i].hours.low, rows[i].hours.high, format_hours(rows[i].hours)});
  return bars;
}

std::string count_box(const char *id, int count, const char *label) {
  return std::string("<div><b id=\"") + id + "\" data-count=\"" + std::to_string(count) + "\">" +
         std::to_string(count) + "</b>" + label + "</div>";
}

// "Why": the reasons grouped by cause; every reason one <details> away.
void write_why(std::ostream &out, const Decision &decision) {
  out << "<h2>Why</h2><ul id=\"reasons\" class=\"groups\">";
  for (const std::string &line : why_lines(decision))
    out << "<li>" << html_escape(line) << "</li>";
  out << "</ul>\n";
  out << "<details id=\"all-reasons\"><summary>All " << decision.reasons.size() << " reasons</summary><ul>";
  for (const auto &reason : decision.reasons)
    out << "<li>" << html_escape(reason) << "</li>";
  out << "</ul></details>\n";
}

void write_plan_step(std::ostream &out, const ActionStep &step) {
  out << "<li" << (step.deferred ? " class=\"muted\"" : "") << "><strong>" << html_escape(step.title)
      << "</strong>";
  if (step.count)
    out << " — " << step.extent();
  out << " — " << html_escape(step.hours.high > 0 ? format_hours(step.hours) : std::string("not estimated"));
  if (step.fix.safe_sites)
    out << " — <code>mpsaudit fix</code> edits " << step.fix.safe_sites << " of them";
  if (!step.detail.empty())
    out << "<br><span class=\"muted\">" << html_escape(step.detail) << "</span>";
  out << "</li>";
}

// The plan's first steps, and the rest one <details> away.
constexpr std::size_t kOpenPlanSteps = 30;

void write_action_plan(std::ostream &out, const Assessment &assessment) {
  const std::vector<ActionStep> &plan = assessment.plan;
  // KEEP_LINUX_GPU: its own steps open, the port folded under them.
  const std::size_t open_steps = static_cast<std::size_t>(
      std::find_if(plan.begin(), plan.end(), [](const ActionStep &step) { return step.if_port_anyway; }) -
      plan.begin());
  const std::size_t shown = std::min(open_steps, kOpenPlanSteps);
  out << "<h2>Action plan</h2><ol id=\"action-plan\">";
  for (std::size_t i = 0; i < shown; ++i)
    write_plan_step(out, plan[i]);
  out << "</ol>\n";
  if (shown == plan.size())
    return;
  if (open_steps < plan.size())
    out << "<details id=\"port-anyway\"><summary>" << html_escape(port_anyway_title(assessment))
        << "</summary>";
  else
    out << "<details id=\"more-steps\"><summary>" << plan.size() - shown << " more steps</summary>";
  out << "<ol start=\"" << shown + 1 << "\">";
  for (std::size_t i = shown; i < plan.size(); ++i)
    write_plan_step(out, plan[i]);
  out << "</ol></details>\n";
}

// One finding as a row of its file's table.
void write_finding_row(std::ostream &out, const Finding &finding) {
  const std::string severity(to_string(static_cast<Severity>(finding.severity)));
  std::string where = "line " + std::to_string(finding.span.line);
  if (finding.cell >= 0)
    where = "cell " + std::to_string(finding.cell + 1) + ", " + where;
  out << "<tr class=\"finding\" data-severity=\"" << severity << "\" data-rule=\""
      << html_escape(finding.rule_id) << "\" data-path=\"" << html_escape(finding.path) << "\" data-line=\""
      << finding.span.line << "\">"
      << "<td data-key=\"" << finding.span.line << "\" title=\"" << html_escape(finding.path) << ":"
      << finding.span.line << "\"><code>" << html_escape(where) << "</code><br><span class=\"sev-" << severity
      << "\">" << severity << "</span></td>"
      << "<td>" << html_escape(finding.rule_id) << "</td><td>" << html_escape(finding.message);
  if (finding.guard != Guard::None)
    out << " <span class=\"muted\">[guarded: " << html_escape(to_string(finding.guard)) << "]</span>";
  out << "</td><td><pre>" << html_escape(finding.snippet) << "</pre></td><td>"
      << html_escape(finding.rule ? finding.rule->replacement : "") << "</td></tr>\n";
}

struct FileFindings {
  std::string path;
  std::vector<const Finding *> findings;
  int errors = 0;
};

// Unsuppressed findings by file: files with the most errors first, then
// the most findings, then by path.
std::vector<FileFindings> findings_by_file(const ScanResult &result) {
  std::vector<FileFindings> files;
  std::map<std::string, std::size_t> index;
  for (const Finding &finding : result.findings) {
    if (finding.suppressed)
      continue;
    const auto [found, added] = index.emplace(finding.path, files.size());
    if (added)
      files.push_back({finding.path, {}, 0});
    FileFindings &file = files[found->second];
    file.findings.push_back(&finding);
    file.errors += finding.severity == static_cast<int>(Severity::Error);
  }
  std::stable_sort(files.begin(), files.end(), [](const FileFindings &a, const FileFindings &b) {
    return a.errors != b.errors ? a.errors > b.errors : a.findings.size() > b.findings.size();
  });
  return files;
}

// The first files open, the rest collapsed.
constexpr std::size_t kOpenFiles = 10;

// Every unsuppressed finding in one table per file (a <details> each), in a
// scroll box so that a wide table never widens the page.
void write_findings_by_file(std::ostream &out, const ScanResult &result) {
  const auto files = findings_by_file(result);
  out << "<div id=\"findings\">";
  if (files.size() > kOpenFiles)
    out << "<p class=\"muted\">" << files.size() << " files; the first " << kOpenFiles
        << " (most errors first) are open, the rest collapsed.</p>";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileFindings &file = files[i];
    out << "<details class=\"file\" data-path=\"" << html_escape(file.path) << "\""
        << (i < kOpenFiles ? " open" : "") << "><summary><code>" << html_escape(file.path)
        << "</code><span class=\"count\">" << file.findings.size()
        << (file.findings.size() == 1 ? " finding" : " findings");
    if (file.errors)
      out << ", " << file.errors << (file.errors == 1 ? " error" : " errors");
    out << "</span></summary><div class=\"table-scroll\"><table class=\"findings sortable\"><colgroup><col "
           "class=\"where\"><col class=\"rule\"><col class=\"message\"><col class=\"code\"><col "
           "class=\"fix\"></colgroup><thead><tr><th>Location</th><th>Rule</th><th>Finding</th><th>Code</th>"
           "<th>Fix</th></tr></thead><tbody>\n";
    for (const Finding *finding : file.findings)
      write_finding_row(out, *finding);
    out << "</tbody></table></div></details>\n";
  }
  out << "</div>\n";
}

struct SeverityCounts {
  int errors = 0, warnings = 0, infos = 0, suppressed = 0;
  int shown() const { return errors + warnings + infos; }
};

SeverityCounts count_by_severity(const ScanResult &result) {
  std::map<int, int> by_severity;
  SeverityCounts counts;
  for (const auto &finding : result.findings) {
    if (finding.suppressed)
      ++counts.suppressed;
    else
      ++by_severity[finding.severity];
  }
  counts.errors = by_severity[static_cast<int>(Severity::Error)];
  counts.warnings = by_severity[static_cast<int>(Severity::Warning)];
  counts.infos = by_severity[static_cast<int>(Severity::Info)];
  return counts;
}

void write_head(std::ostream &out, const ScanResult &result) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
         "'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>mpsaudit: " << html_escape(result.root) << "</title>\n<style>" << kHtmlBaseStyle << kStyle
      << "</style></head>\n<body>\n";
  out << "<h1>mpsaudit: can <code>" << html_escape(scanned_name(result))
      << "</code> run on an Apple-Silicon Mac?</h1>\n";
}

void write_decision_banner(std::ostream &out, const ReportContext &context) {
  if (!context.no_decision_reason.empty())
    out << "<section id=\"decision\" class=\"banner\"><div class=\"outcome\">No decision</div><div>"
        << html_escape(context.no_decision_reason) << "</div></section>\n";
  if (const Assessment *assessment = context.assessment) {
    const Decision &decision = assessment->decision;
    const std::string outcome(to_string(decision.outcome));
    out << "<section id=\"decision\" class=\"banner " << outcome << "\" data-outcome=\"" << outcome << "\">"
        << "<div class=\"outcome\">" << outcome << "</div><div>"
        << html_escape(outcome_meaning(decision.outcome)) << "</div><div><strong>"
        << html_escape(decision.headline) << "</strong></div></section>\n";
  }
}

// The effort tiles: the recommended path leads; the native port, the whole
// estimate and what `fix` removes follow only where each says something new
// (a tile that would repeat a figure keeps its element, hidden, for scripts).
// KEEP_LINUX_GPU labels the native port as the cost of porting anyway, the
// one port figure it shows, and no fix credit: nothing of keeping Linux is a
// code edit.
void write_effort_totals(std::ostream &out, const Assessment &assessment) {
  const EffortEstimate &effort = assessment.effort;
  const RecommendedPlan &plan = assessment.recommended;
  const bool keep = plan.path == RecommendedPath::KeepLinux;
  const std::string recommended = format_hours(plan.hours);
  const std::string native = format_hours(effort.native_port);
  const std::string total = format_hours(effort.total);
  const auto tile = [&out](bool shown) { out << (shown ? "<div>" : "<div hidden>"); };
  tile(true);
  out << "<b id=\"effort-recommended\" data-low=\"" << html_number(plan.hours.low) << "\" data-high=\""
      << html_number(plan.hours.high) << "\" title=\"" << html_escape(plan.basis) << "\">"
      << html_escape(recommended) << "</b>to " << html_escape(plan.goal) << "</div>";
  tile(native != recommended);
  out << "<b id=\"effort-native-port\" data-low=\"" << html_number(effort.native_port.low)
      << "\" data-high=\"" << html_number(effort.native_port.high) << "\" title=\""
      << html_escape(native_port_text(effort, plan.path)) << "\">" << html_escape(native) << "</b>"
      << (keep ? "if you port anyway" : "native port of everything") << "</div>";
  tile(!keep && total != recommended && total != native);
  out << "<b id=\"effort-total\" data-low=\"" << html_number(effort.total.low) << "\" data-high=\""
      << html_number(effort.total.high) << "\">" << html_escape(total)
      << "</b>port of what the Mac needs now</div>";
  // What `fix` removes of the recommended path, as the text's `Fix:` line.
  const FixCredit &fix = plan.fix;
  tile(!keep && fix.safe_sites > 0);
  out << "<b id=\"fix-credit\" data-low=\"" << html_number(fix.safe.low) << "\" data-high=\""
      << html_number(fix.safe.high) << "\" data-findings=\"" << fix.safe_sites << "\">"
      << html_escape(format_hours(fix.safe)) << "</b>removed by <code>mpsaudit fix</code></div>";
}

void write_counts(std::ostream &out, const ScanResult &result, const SeverityCounts &counts,
                  const Assessment *assessment) {
  out << "<section class=\"counts\">" << count_box("count-findings", counts.shown(), "findings")
      << count_box("count-error", counts.errors, "errors")
      << count_box("count-warning", counts.warnings, "warnings")
      << count_box("count-info", counts.infos, "info")
      << count_box("count-suppressed", counts.suppressed, "suppressed")
      << count_box("count-files", static_cast<int>(result.files.size()), "files");
  if (assessment)
    write_effort_totals(out, *assessment);
  out << "</section>\n";
}

void write_what_would_change(std::ostream &out, const Decision &decision) {
  out << "<h2>What would change the decision</h2><ul id=\"what-would-change\">";
  for (const auto &change : decision.what_would_change)
    out << "<li>" << html_escape(change) << "</li>";
  out << "</ul>\n";
}

void write_effort_charts(std::ostream &out, const EffortEstimate &effort, const SeverityCounts &counts) {
  std::vector<Bar> severity_bars = {
      {"error", 0, static_cast<double>(counts.errors), std::to_string(counts.errors), "#cf222e"},
      {"warning", 0, static_cast<double>(counts.warnings), std::to_string(counts.warnings), "#9a6700"},
      {"info", 0, static_cast<double>(counts.infos), std::to_string(counts.infos), "#0969da"},
  };
  for (auto &bar : severity_bars)
    bar.low = bar.high; // counts are exact, not ranges
  out << "<h2>Effort and findings</h2><div class=\"charts\">"
      << "<div class=\"chart\"><h3>Effort by category (low–high)</h3>"
      << bar_chart("chart-category", rollup_bars(effort.by_category, 12)) << "</div>"
      << "<div class=\"chart\"><h3>Effort by directory (low–high)</h3>"
      << bar_chart("chart-directory", rollup_bars(effort.by_directory, 12)) << "</div>"
      << "<div class=\"chart\"><h3>Effort by component role</h3>"
      << bar_chart("chart-role", rollup_bars(effort.by_role, 7)) << "</div>"
      << "<div class=\"chart\"><h3>Findings by severity</h3>" << bar_chart("chart-severity", severity_bars)
      << "</div></div>\n";
}

// What the effort counts and leaves out, and the model it came from.
void write_effort_note(std::ostream &out, const Assessment &assessment) {
  const EffortEstimate &effort = assessment.effort;
  out << "<p class=\"muted\">" << counted(effort.items.size(), "distinct fix", "distinct fixes") << " for "
      << counted(effort.open_findings, "open finding") << "; " << effort.guarded_findings << " guarded and "
      << counted(effort.advisory_findings, "advisory finding") << " need no change";
  if (effort.not_estimated)
    out << "; " << counted(effort.not_estimated, "blocker") << " not estimated";
  if (effort.deferred.high > 0)
    out << "; deferred kernel ports " << html_escape(format_hours(effort.deferred));
  out << ". Effort model: <code>" << html_escape(assessment.effort_model_origin) << "</code>.";
  // KEEP_LINUX_GPU's path edits no code: `fix` would only shorten a port
  // that is not recommended.
  if (assessment.recommended.path != RecommendedPath::KeepLinux &&
      effort.fix.safe_sites + effort.fix.unsafe_sites > 0)
    out << " " << html_escape(fix_credit_sentence(effort.fix, "all the open work"));
  out << "</p>\n";
}

void write_acceptance_levels(std::ostream &out, const std::vector<AcceptanceLevel> &levels) {
  out << "<h2>Acceptance levels</h2><div class=\"table-scroll\"><table "
         "id=\"acceptance\"><thead><tr><th>Level</th><th>Status</th>"
      << "<th>Evidence</th><th>How to confirm</th></tr></thead><tbody>";
  for (const auto &level : levels) {
    const std::string status(to_string(level.status));
    out << "<tr data-status=\"" << html_escape(status) << "\"><td>" << level.level << ". "
        << html_escape(level.title) << "</td><td class=\"status-" << html_escape(status) << "\">"
        << html_escape(status) << "</td><td>" << html_escape(level.evidence) << "</td><td>"
        << html_escape(level.how_to_confirm) << "</td></tr>";
  }
  out << "</tbody></table></div>\n";
}

void write_memory_fit(std::ostream &out, const MemoryFit &memory) {
  out << "<h2>Memory fit</h2><p id=\"memory-fit\">"
      << html_escape(memory.has_estimate
                         ? memory.summary
                         : std::string("No checkpoint, model config or stated VRAM found: not estimated."))
      << "</p>\n";
}

void write_probe(std::ostream &out, const ProbeVerdicts &probe) {
  out << "<h2>Runtime probe</h2><section id=\"probe\" data-ran=\"" << (probe.present ? "true" : "false")
      << "\">";
  if (!probe.present) {
    out << "<p class=\"muted\">No probe ran: every runtime claim is not yet confirmed. Run "
           "<code>mpsaudit-probe</code> on the Mac and pass its verdicts with <code>--verdicts</code>.</p>";
  } else {
    out << "<div class=\"table-scroll\"><table><tbody><tr><th>Target</th><td>" << html_escape(probe.target)
        << "</td></tr><tr><th>OS</th><td>" << html_escape(probe.environment.os + " " + probe.environment.arch)
        << "</td></tr><tr><th>LibTorch</th><td>" << html_escape(probe.environment.libtorch_version)
        << "</td></tr><tr><th>MPS built / available</th><td>" << (probe.environment.mps_built ? "yes" : "no")
        << " / " << (probe.environment.mps_available ? "yes" : "no")
        << "</td></tr><tr><th>Coverage table</th><td>" << html_escape(probe.coverage_table)
        << "</td></tr></tbody></table></div>";
    for (const auto &warning : probe.environment.warnings)
      out << "<p class=\"sev-warning\">" << html_escape(warning) << "</p>";
    out << "<div class=\"table-scroll\"><table "
           "id=\"probe-operators\"><thead><tr><th>Operator</th><th>MPS</th><th>Evidence</th><th>Reason</th>"
           "<th>First use</th></tr></thead><tbody>";
    for (const auto &op : probe.operators)
      out << "<tr><td><code>" << html_escape(op.name) << "</code></td><td>" << html_escape(op.outcome)
          << "</td><td>" << html_escape(op.evidence) << "</td><td>" << html_escape(op.reason) << "</td><td>"
          << html_escape(op.path + ":" + std::to_string(op.line)) << "</td></tr>";
    out << "</tbody></table></div>";
  }
  out << "</section>\n";
}

void write_assessment(std::ostream &out, const Assessment &assessment, const SeverityCounts &counts) {
  write_why(out, assessment.decision);
  write_what_would_change(out, assessment.decision);
  write_effort_charts(out, assessment.effort, counts);
  write_effort_note(out, assessment);
  write_acceptance_levels(out, assessment.acceptance);
  write_memory_fit(out, assessment.memory);
  write_probe(out, assessment.probe);
  write_action_plan(out, assessment);
}

void write_entry_points(std::ostream &out, const ScanResult &result, const Assessment &assessment) {
  std::size_t hidden = 0;
  const auto shown = shown_entry_points(assessment, 50, hidden);
  if (shown.empty())
    return;
  out << "<h2>Entry points</h2><div class=\"table-scroll\"><table "
         "id=\"entry-points\"><thead><tr><th>Entry</th><th>Purpose</th>"
         "<th>Runs on a Mac?</th><th>Blocked by</th><th>Effort</th></tr></thead><tbody>";
  for (const EntryAssessment *entry : shown) {
    const std::string blockers = entry_blockers_text(result, *entry);
    out << "<tr data-mac=\"" << html_escape(std::string(to_string(entry->mac))) << "\"><td><code>"
        << html_escape(path_for_display(result, entry->entry.path)) << "</code></td><td>"
        << html_escape(std::string(to_string(entry->entry.purpose))) << "<br><span class=\"muted\">"
        << html_escape(entry->entry.purpose_source) << "</span></td><td>"
        << html_escape(entry_mac_text(*entry)) << "</td><td>"
        << (blockers.empty() ? "—" : html_escape(blockers)) << "</td><td>"
        << html_escape(format_hours(entry->hours)) << "</td></tr>";
  }
  out << "</tbody></table></div>\n";
  if (hidden)
    out << "<p class=\"muted\">" << hidden
        << " more (tests, examples or beyond the first 50) in the JSON report.</p>\n";
}

// The findings with their filters, then the summary line and the script.
void write_findings_and_close(std::ostream &out, const ScanResult &result, const SeverityCounts &counts,
                              const ReportContext &context) {
  out << "<h2>Findings (<span id=\"shown-count\">" << counts.shown() << "</span> shown)</h2>\n"
      << "<div class=\"filters\"><input id=\"filter\" type=\"search\" placeholder=\"Filter by rule, path, "
         "message…\">"
      << "<select id=\"severity-filter\"><option value=\"\">all severities</option><option "
         "value=\"error\">error</option>"
      << "<option value=\"warning\">warning</option><option value=\"info\">info</option></select></div>\n";
  write_findings_by_file(out, result);
  if (const std::string config = config_line(result, context.catalog); !config.empty())
    out << "<p class=\"muted\" id=\"config\">" << html_escape(config) << "</p>\n";
  out << "<p class=\"muted\">" << html_escape(summary_line(result)) << " · mpsaudit "
      << html_escape(context.tool_version) << "</p>\n<script>" << kScript << kSortableTablesScript
      << "</script>\n</body></html>\n";
}

} // namespace

void write_html_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  const SeverityCounts counts = count_by_severity(result);
  write_head(out, result);
  write_decision_banner(out, context);
  write_counts(out, result, counts, context.assessment);
  if (context.assessment) {
    write_assessment(out, *context.assessment, counts);
    write_entry_points(out, result, *context.assessment);
  }
  write_findings_and_close(out, result, counts, context);
}

} // namespace mpsaudit
