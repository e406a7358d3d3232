// `portfolio --format html`: one self-contained page, like the scan's HTML
// report. CSS, script and the SVG chart are inline and a
// Content-Security-Policy forbids every network request.
//
// Elements tests and scripts read (docs/portfolio.md):
//   #portfolio-table tbody tr[data-name][data-verdict]  one row per repository
//   #total-ADAPT, #total-DUAL, #total-KEEP_LINUX_GPU [data-count][data-low][data-high]
//   #effort-chart g.bar                                  one bar per scanned repository
//   #shared-blockers tbody tr[data-cause]                the cross-repository blockers
#include <cstdio>

#include "portfolio/portfolio_writers.h"
#include "report/html_parts.h"

namespace mpsaudit {
namespace {

// What this page adds to kHtmlBaseStyle.
constexpr const char *kStyle =
    R"CSS(.totals{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}.totals div{border-radius:6px;padding:8px 14px;color:#fff;min-width:180px}
.totals b{font-size:22px;display:block}.ADAPT{background:var(--ok)}.DUAL{background:var(--dual)}.KEEP_LINUX_GPU{background:var(--keep)}
.verdict{color:#fff;border-radius:4px;padding:1px 6px;font-weight:600;font-size:12px;white-space:nowrap}.verdict.error{background:var(--muted)}
.table-scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--bg);cursor:pointer;user-select:none}th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
table#portfolio-table{font-size:13px}td.number{text-align:right;white-space:nowrap}td.name{max-width:28ch;overflow-wrap:anywhere}td.why{min-width:24ch;max-width:34ch;font-size:12px}td.blockers{min-width:16ch;max-width:26ch;font-size:12px}#portfolio-table th,#portfolio-table td{padding:4px 6px}
.chart{border:1px solid var(--line);border-radius:6px;padding:10px;max-width:640px}.muted{color:var(--muted)}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
)CSS";

const char *verdict_colour(const std::string &verdict) {
  if (verdict == "ADAPT")
    return "#1a7f37";
  if (verdict == "DUAL")
    return "#9a6700";
  return "#cf222e";
}

std::string mid_key(const HourRange &hours) {
  return html_number((hours.low + hours.high) / 2);
}

std::string cell(const std::string &text, const char *css_class = nullptr, const std::string &key = {}) {
  std::string html = "<td";
  if (css_class)
    html += std::string(" class=\"") + css_class + "\"";
  if (!key.empty())
    html += " data-key=\"" + html_escape(key) + "\"";
  return html + ">" + text + "</td>";
}

void write_totals(std::ostream &out, const Portfolio &portfolio) {
  out << "<div class=\"totals\">";
  for (const VerdictTotal &total : portfolio.totals) {
    out << "<div class=\"" << total.verdict << "\" id=\"total-" << total.verdict << "\" data-count=\""
        << total.repositories << "\" data-low=\"" << html_number(total.hours.low) << "\" data-high=\""
        << html_number(total.hours.high) << "\"><b>" << total.repositories << " " << total.verdict << "</b>"
        << (total.repositories ? person_days_text(total.hours) : "–") << "</div>";
  }
  out << "</div>\n";
}

void write_chart(std::ostream &out, const Portfolio &portfolio) {
  std::vector<Bar> bars;
  for (const PortfolioRow &row : portfolio.rows)
    if (row.ok())
      bars.push_back({row.name, row.effort.low, row.effort.high, format_hours(row.effort) + " " + row.verdict,
                      verdict_colour(row.verdict)});
  out << "<h2>Effort of the recommended path, per repository</h2>\n<div class=\"chart\">"
      << bar_chart("effort-chart", bars, 220) << "</div>\n";
}

void write_row(std::ostream &out, const PortfolioRow &row, const PortfolioWriterOptions &options) {
  const std::string name =
      html_escape(row.name) +
      (row.commit ? " <code class=\"muted\">" + html_escape(row.commit->substr(0, 7)) + "</code>" : "");
  out << "<tr data-name=\"" << html_escape(row.name) << "\" data-verdict=\""
      << html_escape(row.ok() ? row.verdict : "error") << "\">" << cell(name, "name", row.name);
  if (!row.ok()) {
    out << cell("<span class=\"verdict error\">error</span>", nullptr, "9")
        << cell(html_escape(row.error), "why")
        << "<td></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>\n";
    return;
  }
  std::string verdict = "<span class=\"verdict " + row.verdict + "\">" + row.verdict + "</span>";
  if (!row.html_report.empty())
    verdict = "<a href=\"" + html_escape(report_link(row.html_report, options.written_to)) + "\">" + verdict +
              "</a>";
  std::string blockers;
  for (std::size_t i = 0; i < row.blockers.size() && i < 3; ++i)
    blockers += (i ? "<br>" : "") + html_escape(row.blockers[i].title);
  if (row.blockers.size() > 3)
    blockers += "<br><span class=\"muted\">+" + std::to_string(row.blockers.size() - 3) + " more</span>";
  char share[16];
  std::snprintf(share, sizeof share, "%.0f%%", row.fix_share() * 100);
  out << cell(verdict, nullptr, row.verdict) << cell(html_escape(row.reason), "why")
      << cell(html_escape(format_hours(row.effort)), "number", mid_key(row.effort))
      << cell(row.native_port ? html_escape(format_hours(*row.native_port)) : "–", "number",
              row.native_port ? mid_key(*row.native_port) : "0")
      << cell(share, "number", html_number(row.fix_share()))
      << cell(std::to_string(row.entries_on_mac) + "/" + std::to_string(row.entries), "number",
              std::to_string(row.entries_on_mac))
      << cell(std::to_string(row.files), "number") << cell(std::to_string(row.findings), "number")
      << cell(blockers.empty() ? "–" : blockers, "blockers") << "</tr>\n";
}

void write_table(std::ostream &out, const Portfolio &portfolio, const PortfolioWriterOptions &options) {
  out << "<h2>Repositories</h2>\n<div class=\"table-scroll\"><table id=\"portfolio-table\" "
         "class=\"sortable\"><thead><tr>"
         "<th>repository</th><th>verdict</th><th>why</th><th>effort</th><th>native port</th><th>fix</th>"
         "<th>Mac entries</th><th>files</th><th>findings</th><th>top blockers</th></tr></thead><tbody>\n";
  for (const PortfolioRow &row : portfolio.rows)
    write_row(out, row, options);
  out << "</tbody></table></div>\n";
}

void write_shared_blockers(std::ostream &out, const Portfolio &portfolio) {
  out << "<h2>Blockers across repositories</h2>\n<p class=\"muted\">Each cause pushes these repositories off "
         "ADAPT. "
         "A CUDA-only package is replaced once for all of them; a pattern or kernel code is work in "
         "each.</p>\n";
  if (portfolio.shared_blockers.empty()) {
    out << "<p>No repository has a blocker.</p>\n";
    return;
  }
  out << "<div class=\"table-scroll\"><table id=\"shared-blockers\" "
         "class=\"sortable\"><thead><tr><th>blocker</th>"
         "<th>repositories</th><th>hours in all</th><th>one replacement for "
         "all</th><th>which</th></tr></thead><tbody>\n";
  for (const SharedBlocker &blocker : portfolio.shared_blockers) {
    std::string names;
    for (const std::string &name : blocker.repositories)
      names += (names.empty() ? "" : ", ") + html_escape(name);
    out << "<tr data-cause=\"" << html_escape(blocker.cause) << "\">" << cell(html_escape(blocker.title))
        << cell(std::to_string(blocker.repositories.size()), "number")
        << cell(blocker.hours.high > 0 ? html_escape(format_hours(blocker.hours)) : "–", "number",
                mid_key(blocker.hours))
        << cell(blocker.replaced_once() ? "yes" : "no") << cell(names) << "</tr>\n";
  }
  out << "</tbody></table></div>\n";
}

void write_release(std::ostream &out, const Portfolio &portfolio) {
  out << "<h2>Torch release</h2>\n<p id=\"torch-release\">"
      << html_escape(portfolio_release_sentence(portfolio)) << "</p>\n";
}

void write_changes(std::ostream &out, const Portfolio &portfolio) {
  if (portfolio.baseline_file.empty())
    return;
  out << "<h2>Since " << html_escape(portfolio.baseline_file) << "</h2>\n<ul id=\"changes\">";
  for (const std::string &line : portfolio_change_lines(portfolio))
    out << "<li>" << html_escape(line) << "</li>";
  out << "</ul>\n";
}

} // namespace

void write_portfolio_html(std::ostream &out, const Portfolio &portfolio,
                          const PortfolioWriterOptions &options) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
         "'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>mpsaudit portfolio</title>\n<style>" << kHtmlBaseStyle << kStyle
      << "</style></head>\n<body>\n"
      << "<h1>mpsaudit portfolio: " << portfolio.rows.size()
      << " repositories on an Apple-Silicon Mac</h1>\n<p class=\"muted\">Each repository judged on its own "
         "by "
         "<code>mpsaudit scan</code>; effort is the recommended path's, in person-hours (8 h a day). "
         "mpsaudit "
      << html_escape(portfolio.tool_version) << ".</p>\n";
  write_totals(out, portfolio);
  write_table(out, portfolio, options);
  write_chart(out, portfolio);
  write_shared_blockers(out, portfolio);
  write_release(out, portfolio);
  write_changes(out, portfolio);
  out << "<script>" << kSortableTablesScript << "</script>\n</body></html>\n";
}

} // namespace mpsaudit
